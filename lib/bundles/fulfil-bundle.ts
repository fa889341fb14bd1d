import type { Db } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { bundleLicenseEmail } from "../email/templates.ts";
import { issueLicense } from "../licensing/issue-license.ts";
import type { Actor } from "../licensing/license-events.ts";
import { downloadPath } from "../marketplace/get-download.ts";
import { orderCharges } from "../pricing.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { itemsToLicense } from "./bundle-sale.ts";
import { mailDownloads } from "../updates/mail-downloads.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** What fulfilment knows of a paid bundle order. */
export interface PaidBundleOrder {
  id: string;
  productId: string;
  buyerEmail: string;
  quantity: number;
  createdAt: Date;
  currency: string;
  subtotalCents: number;
  discountCents: number;
  couponCode: string | null;
  amountCents: number;
  taxCents: number | null;
  product: { name: string; bundleProrate: boolean; developer: { name: string } };
}

/**
 * A paid bundle order's licenses, inside the payment's transaction: one per included product, each with that
 * product's own max machines × the seats bought, each naming the order (`bundleOrderId`, so its refund ends them all)
 * and the bundle in its log; none for an item the buyer already held when the checkout opened (the price left it
 * out), and none of the bundle product itself. One e-mail lists every key. Returns the keys issued.
 */
export async function issueBundleLicenses(tx: Tx, order: PaidBundleOrder, paidAt: Date, actor: Actor): Promise<string[]> {
  const items = await itemsToLicense(tx, { id: order.productId, bundleProrate: order.product.bundleProrate }, order, paidAt);
  const bundle = { orderId: order.id, productId: order.productId, name: order.product.name };
  const issued = [];
  for (const item of items.filter((i) => !i.held)) {
    const license = await issueLicense(
      tx,
      { productId: item.id, buyerEmail: order.buyerEmail, maxMachines: item.maxMachines * order.quantity, source: "purchase", bundle },
      actor,
    );
    issued.push({ item, license });
  }
  // One after another: the queries share the transaction's one connection.
  const licenses = [];
  for (const { item, license } of issued) {
    licenses.push({
      productName: item.name,
      licenseKey: license.key,
      maxMachines: license.maxMachines,
      downloadUrl: absoluteUrl(downloadPath(item.id, license)),
      // Each product's release builds when it has any (each link checks its license), else its single link.
      release: await mailDownloads(tx, license.id),
      productPageUrl: absoluteUrl(paths.product(item.id)),
    });
  }
  const mail = bundleLicenseEmail({
    buyerEmail: order.buyerEmail,
    bundleName: order.product.name,
    developerName: order.product.developer.name,
    orderId: order.id,
    charges: orderCharges(order),
    licenses,
    alreadyHeld: items.filter((i) => i.held).map((i) => i.name),
  });
  // The same deduplication key as a single license's mail: the checkout's pages read its status by it.
  await enqueueEmail(tx, { to: order.buyerEmail, ...mail, kind: "license", dedupeKey: `license:${order.id}` });
  return issued.map(({ license }) => license.key);
}
