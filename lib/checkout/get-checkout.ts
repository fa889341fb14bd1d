import { downloadPath } from "../marketplace/get-download.ts";
import { getDb } from "../db.ts";
import { notFound } from "../http/errors.ts";
import { formatPrice, orderCharges } from "../pricing.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";
import { absoluteUrl, paths } from "../urls.ts";
import type { CheckoutStatus, OrderStatus } from "./schemas.ts";

/** An open session past its expiry is expired, whether or not the provider has said so yet. */
export function effectiveStatus(order: { status: string; expiresAt: Date }, now = Date.now()): OrderStatus {
  if (order.status === "open" && order.expiresAt.getTime() <= now) return "expired";
  return order.status as OrderStatus;
}

async function loadOrder(sessionId: string) {
  const order = await getDb().order.findUnique({
    where: { id: sessionId },
    include: {
      product: {
        select: {
          id: true,
          name: true,
          tagline: true,
          pluginId: true,
          iconUrl: true,
          downloadUrl: true,
          maxMachines: true,
          subscriptionTrialDays: true,
          developer: { select: { name: true } },
        },
      },
      license: { select: { id: true, key: true, maxMachines: true, buyerEmail: true } },
      // A bundle's order has no license of its own: one per included product (lib/bundles).
      bundleLicenses: {
        select: { id: true, key: true, maxMachines: true, product: { select: { id: true, name: true, pluginId: true } } },
        orderBy: { id: "asc" },
      },
    },
  });
  if (!order) throw notFound("checkout_session", "No checkout session has this id.");
  return order;
}

async function emailStatus(orderId: string): Promise<"queued" | "sent"> {
  const mail = await getDb().emailMessage.findUnique({ where: { dedupeKey: `license:${orderId}` }, select: { status: true } });
  return mail?.status === "sent" ? "sent" : "queued";
}

/** A checkout session's outcome, for the agent or app that created it: status and, once paid, the key and where it went. */
export async function getCheckoutStatus(sessionId: string, now = Date.now()): Promise<CheckoutStatus> {
  const order = await loadOrder(sessionId);
  const status = effectiveStatus(order, now);
  // A test-mode session cannot be paid once test mode is off: there is nowhere to pay it.
  const payable = status === "open" && (order.provider !== "test" || testPaymentsEnabled());
  return {
    session_id: order.id,
    status,
    url: payable ? order.checkoutUrl : null,
    provider: order.provider as "test" | "stripe",
    product_id: order.product.id,
    product_name: order.product.name,
    amount_cents: order.amountCents,
    fee_cents: order.feeCents,
    currency: order.currency,
    quantity: order.quantity,
    subtotal_cents: order.subtotalCents,
    discount_cents: order.discountCents,
    coupon_code: order.couponCode,
    tax_cents: order.taxCents,
    buyer_email: order.buyerEmail,
    agent_id: order.agentId,
    created_at: order.createdAt.toISOString(),
    expires_at: order.expiresAt.toISOString(),
    paid_at: order.paidAt?.toISOString() ?? null,
    license: order.license
      ? {
          license_key: order.license.key,
          plugin_id: order.product.pluginId,
          max_machines: order.license.maxMachines,
          delivered_to: order.license.buyerEmail,
          email_status: await emailStatus(order.id),
          receipt_url: absoluteUrl(`/api/receipt?key=${order.license.key}`),
        }
      : null,
    success_page: absoluteUrl(`/checkout/${order.id}/success`),
    ...(order.bundleLicenses.length > 0
      ? {
          bundle_licenses: order.bundleLicenses.map((l) => ({
            product_id: l.product.id,
            license_key: l.key,
            plugin_id: l.product.pluginId,
            max_machines: l.maxMachines,
            receipt_url: absoluteUrl(`/api/receipt?key=${l.key}`),
          })),
        }
      : {}),
  };
}

/** What the checkout and success pages show. */
export async function getCheckoutView(sessionId: string, now = Date.now()) {
  const order = await loadOrder(sessionId);
  const status = effectiveStatus(order, now);
  // An updates plan's renewal issues no license: it extends the one it names, which its page shows once paid.
  const renewed = order.renewsLicenseId
    ? await getDb().license.findUnique({
        where: { id: order.renewsLicenseId },
        select: { id: true, key: true, maxMachines: true, updatesUntil: true },
      })
    : null;
  const license = order.license ?? (status === "paid" && renewed ? renewed : null);
  const trialDays = order.interval && order.amountCents === 0 ? order.product.subscriptionTrialDays : 0;
  /** What the order buys, in words the pages repeat: a license for good, a subscription, or a year more of updates. */
  const plan = order.interval
    ? {
        kind: "subscription" as const,
        interval: order.interval as "month" | "year",
        periodPrice: formatPrice((order.unitAmountCents ?? 0) * order.quantity, order.currency),
        trialDays,
      }
    : renewed
      ? { kind: "updates_renewal" as const, updatesUntil: renewed.updatesUntil }
      : { kind: "one_time" as const };
  return {
    id: order.id,
    status,
    provider: order.provider as "test" | "stripe",
    checkoutUrl: order.checkoutUrl,
    buyerEmail: order.buyerEmail,
    agentId: order.agentId,
    amountDisplay: formatPrice(order.amountCents, order.currency),
    charges: orderCharges(order),
    expiresAt: order.expiresAt,
    paidAt: order.paidAt,
    product: {
      id: order.product.id,
      name: order.product.name,
      tagline: order.product.tagline,
      developer: order.product.developer.name,
      pluginId: order.product.pluginId,
      iconUrl: absoluteUrl(order.product.iconUrl),
      // Through our license-gated route once there is a license; never the seller's raw URL.
      downloadUrl: license ? absoluteUrl(downloadPath(order.product.id, license)) : null,
      pageUrl: absoluteUrl(paths.product(order.product.id)),
      maxMachines: order.product.maxMachines,
    },
    license: license ? { key: license.key, maxMachines: license.maxMachines } : null,
    /** A bundle's order: the license of each included product it issued. */
    bundleLicenses: order.bundleLicenses.map((l) => ({
      key: l.key,
      maxMachines: l.maxMachines,
      productId: l.product.id,
      productName: l.product.name,
    })),
    plan,
    /**
     * Paid but never licensed, its payment refunded whole (reserved or done): it arrived for a product that could no
     * longer be sold (lib/checkout/fulfil-order.ts). No key will come.
     */
    refusedAndRefunded:
      order.status === "paid" &&
      !order.license &&
      order.bundleLicenses.length === 0 &&
      order.refundedCents > 0 &&
      order.refundedCents >= order.amountCents + (order.taxCents ?? 0),
    emailStatus: license ? await emailStatus(order.id) : null,
  };
}
export type CheckoutView = Awaited<ReturnType<typeof getCheckoutView>>;
