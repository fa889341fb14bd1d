import { getCheckoutView } from "@/lib/checkout/get-checkout";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as downloadRoute } from "@/app/api/updates/[plugin_id]/download/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { addMonths } from "@/lib/subscriptions/plans";
import { call, expectProblem, type Reply } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { dropTempUploads, productWithReleases, useTempUploads } from "./updates.fixtures";

/**
 * "One-time + paid updates" (an updates plan), both engines: the license is perpetual and gets the releases published
 * while its plan is paid. A license bought a year ago whose plan lapsed is refused a newer release with
 * release_not_entitled naming the renewal; renewing at the seller's renewal price entitles it at once, without a new
 * license, and the license keeps working throughout.
 */

const PRICE = 4900;
const RENEWAL = 1900;

beforeAll(useTempUploads);
afterAll(async () => {
  await dropTempUploads();
  await disconnectDb();
});

const download = (pluginId: string, key: string, machine: string, version: string): Promise<Reply> =>
  call(downloadRoute, `/api/updates/${pluginId}/download?${new URLSearchParams({ platform: "linux-x64", version }).toString()}`, {
    params: { plugin_id: pluginId },
    headers: { "x-license-key": key, "x-machine-fingerprint": machine },
  });

describe("an updates plan", () => {
  it("refuses a release after the plan lapsed, naming the renewal; renewing entitles it at once", async () => {
    const fx = await productWithReleases([
      { version: "1.0.0", files: [{ platform: "linux-x64", filename: "app-1.0.0.tar.gz" }], publishedDaysAgo: 400 },
      { version: "1.2.0", files: [{ platform: "linux-x64", filename: "app-1.2.0.tar.gz" }], publishedDaysAgo: 1 },
    ]);
    await getDb().product.update({
      where: { id: fx.productId },
      data: { pricingModel: "updates_plan", priceCents: PRICE, renewalPriceCents: RENEWAL },
    });
    const buyer = `plan-buyer-${fx.productId}@example.com`;
    const bought = await createCheckout({ product_id: fx.productId, buyer_email: buyer });
    await payTestCheckout(bought.session_id);
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: bought.session_id } });
    expect(license.expiresAt).toBeNull();
    expect(license.updatesUntil!.getTime()).toBe(
      addMonths((await getDb().order.findUniqueOrThrow({ where: { id: bought.session_id } })).paidAt!, 12).getTime(),
    );
    const machine = fingerprint();
    expect((await activateMachine({ license_key: license.key, machine_fingerprint: machine, plugin_id: fx.pluginId })).code).toBe("ACTIVATED");
    expect((await download(fx.pluginId, license.key, machine, "1.2.0")).status).toBe(302);

    // Bought 13 months ago: the plan lapsed a month ago, before 1.2.0 came out.
    const ago = new Date(Date.now() - 395 * 86_400_000);
    await getDb().license.update({ where: { id: license.id }, data: { issuedAt: ago, updatesUntil: addMonths(ago, 12) } });
    const refused = await download(fx.pluginId, license.key, machine, "1.2.0");
    expectProblem(refused, 403, "release_not_entitled");
    expect(refused.body.detail).toMatch(/updates ended on \d{4}-\d{2}-\d{2}, before 1\.2\.0 was published\. Renew them/);
    expect(refused.body.detail).toContain(`/products/${fx.productId}#buy`);
    expect((await download(fx.pluginId, license.key, machine, "1.0.0")).status).toBe(302);

    // Renewed at the renewal price: a year from now, the same license, 1.2.0 at once.
    const renewal = await createCheckout({ product_id: fx.productId, buyer_email: buyer, renew_license_key: license.key });
    const order = await getDb().order.findUniqueOrThrow({ where: { id: renewal.session_id } });
    expect(order).toMatchObject({ amountCents: RENEWAL, renewsLicenseId: license.id });
    await payTestCheckout(renewal.session_id);
    await payTestCheckout(renewal.session_id); // pressed twice: one renewal
    const after = await getDb().license.findUniqueOrThrow({ where: { id: license.id } });
    const paidAt = (await getDb().order.findUniqueOrThrow({ where: { id: renewal.session_id } })).paidAt!;
    expect(after.updatesUntil!.getTime()).toBe(addMonths(paidAt, 12).getTime());
    expect(await getDb().license.count({ where: { buyerEmail: buyer } })).toBe(1);
    expect((await download(fx.pluginId, license.key, machine, "1.2.0")).status).toBe(302);
    expect(await getDb().emailMessage.count({ where: { to: buyer, kind: "updates-renewed" } })).toBe(1);
    const ledger = await getDb().ledgerEntry.findMany({ where: { orderId: renewal.session_id, kind: "sale" } });
    expect(ledger.map((e) => e.amountMinor)).toEqual([RENEWAL]);
    // Its success page shows the license it renewed and until when, not a wait for a key that never comes.
    const view = await getCheckoutView(renewal.session_id);
    expect(view.license?.key).toBe(license.key);
    expect(view.plan).toEqual({ kind: "updates_renewal", updatesUntil: after.updatesUntil });
  });

  it("refuses a renewal of a product without a plan, or of another product's license", async () => {
    const fx = await productWithReleases([]);
    const bought = await createCheckout({ product_id: fx.productId, buyer_email: `plain-${fx.productId}@example.com` });
    await payTestCheckout(bought.session_id);
    const license = await getDb().license.findUniqueOrThrow({ where: { orderId: bought.session_id } });
    await expect(createCheckout({ product_id: fx.productId, buyer_email: "x@example.com", renew_license_key: license.key })).rejects.toMatchObject({
      code: "renewal_not_offered",
      status: 400,
    });
    const other = await productWithReleases([]);
    await getDb().product.update({ where: { id: other.productId }, data: { pricingModel: "updates_plan", renewalPriceCents: RENEWAL } });
    await expect(createCheckout({ product_id: other.productId, buyer_email: "x@example.com", renew_license_key: license.key })).rejects.toMatchObject(
      {
        status: 404,
      },
    );
  });
});
