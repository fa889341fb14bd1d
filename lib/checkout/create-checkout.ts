import { getDb } from "../db.ts";
import { exhausted, releaseRedemption, reserveRedemption } from "../coupons/apply-coupon.ts";
import { payoutReady } from "../selling/publish-gate.ts";
import { env } from "../env.ts";
import { AppError, notFound } from "../http/errors.ts";
import { absoluteUrl, productIconPath } from "../urls.ts";
import { paymentProvider } from "../payments/provider.ts";
import { closeOrderNow, sweepExpiredCheckouts } from "./close-order.ts";
import { buyableProduct, priceCheckout, type BuyableProduct, type PricedCheckout } from "./quote-checkout.ts";
import type { CreateCheckoutRequest } from "./schemas.ts";
import { newSessionId } from "./session-id.ts";

/** Checkout sessions stay open this long (Stripe allows at most 24 h). */
const CHECKOUT_TTL_MS = 23 * 3600_000;

/**
 * Takes one redemption of the coupon for a new checkout. When the limit is reached, checkouts that expired without
 * anyone closing them yet (test mode has no expiry event) still hold theirs: sweep those and try once more.
 */
async function reserve(couponId: string, code: string, now: Date): Promise<void> {
  if (await reserveRedemption(getDb(), couponId)) return;
  if ((await sweepExpiredCheckouts([couponId], now)) > 0 && (await reserveRedemption(getDb(), couponId))) return;
  throw exhausted(code);
}

/**
 * The seller's payout account a sale pays, when it belongs to this provider and is ready (a Stripe Connect account for
 * Stripe, the built-in test account in test mode); otherwise (a legacy or demo listing) null: the charge is the
 * platform's alone, as before payouts existed.
 */
export async function salePayoutAccount(developerId: string, providerName: string): Promise<string | null> {
  const account = await getDb().payoutAccount.findUnique({ where: { developerId } });
  return account && account.provider === providerName && payoutReady(account) ? account.id : null;
}

/** A new open order for a priced purchase, as every checkout (hosted or ACP) records it. */
export function openOrderData(o: {
  product: BuyableProduct;
  priced: PricedCheckout;
  buyerEmail: string;
  agentId: string | null;
  provider: string;
  payoutAccountId: string | null;
  expiresAt: Date;
}) {
  const { product, priced } = o;
  // A subscription's free trial charges nothing now: the order records what it pays (0); the subscription it starts
  // keeps the price and the coupon for the first charge at the trial's end.
  const trial = priced.interval !== null && priced.trialDays > 0;
  return {
    id: newSessionId(),
    productId: product.id,
    buyerEmail: o.buyerEmail,
    agentId: o.agentId,
    provider: o.provider,
    quantity: priced.quantity,
    subtotalCents: trial ? 0 : priced.subtotalCents,
    discountCents: trial ? 0 : priced.discountCents,
    couponId: priced.coupon?.id ?? null,
    couponCode: priced.coupon?.code ?? null,
    amountCents: trial ? 0 : priced.amountCents,
    feeCents: trial ? 0 : priced.feeCents,
    interval: priced.interval,
    unitAmountCents: priced.interval ? priced.unitCents : null,
    currency: product.currency,
    payoutAccountId: o.payoutAccountId,
    status: "open",
    expiresAt: o.expiresAt,
  };
}

/**
 * An updates plan's renewal: the license (named by its key, which only its holder has) must be of this product, which
 * must sell renewals, and must still be in force; the renewal is priced per seat the license holds.
 */
async function renewable(product: BuyableProduct, key: string): Promise<{ licenseId: string; seats: number; unitCents: number }> {
  const full = await getDb().product.findUniqueOrThrow({ where: { id: product.id }, select: { pricingModel: true, renewalPriceCents: true } });
  if (full.pricingModel !== "updates_plan" || full.renewalPriceCents === null) {
    throw new AppError("renewal_not_offered", 400, "This product does not sell renewals of updates: leave out renew_license_key.");
  }
  const license = await getDb().license.findUnique({ where: { key }, select: { id: true, productId: true, isActive: true, maxMachines: true } });
  if (!license || license.productId !== product.id) throw notFound("license", "No license of this product has this key.");
  if (!license.isActive) throw new AppError("license_not_renewable", 409, "This license is revoked or refunded, so its updates cannot be renewed.");
  return { licenseId: license.id, seats: Math.max(1, Math.round(license.maxMachines / product.maxMachines)), unitCents: full.renewalPriceCents };
}

/**
 * Opens a checkout session for one product: prices it (quantity, coupon, minimum charge: priceCheckout), reserves
 * the coupon's redemption, records the order (amounts, the platform fee on what is paid, the seller's payout account,
 * the agent for attribution) and asks the payment provider for a hosted checkout. Only listed products can be bought.
 */
export async function createCheckout(input: CreateCheckoutRequest, now = new Date()): Promise<{ url: string; session_id: string }> {
  const db = getDb();
  const product = await buyableProduct(input.product_id);
  const renewal = input.renew_license_key ? await renewable(product, input.renew_license_key) : null;
  const priced = renewal
    ? await priceCheckout(product, renewal.seats, input.coupon_code, now, undefined, renewal.unitCents)
    : await priceCheckout(product, input.quantity ?? 1, input.coupon_code, now, input.interval);
  const provider = paymentProvider();
  const payoutAccountId = await salePayoutAccount(product.developerId, provider.name);

  const coupon = priced.coupon;
  if (coupon) await reserve(coupon.id, coupon.code, now);
  let order;
  try {
    order = await db.order.create({
      data: {
        ...openOrderData({
          product,
          priced,
          buyerEmail: input.buyer_email,
          agentId: input.agent_id ?? null,
          provider: provider.name,
          payoutAccountId,
          expiresAt: new Date(now.getTime() + CHECKOUT_TTL_MS),
        }),
        renewsLicenseId: renewal?.licenseId ?? null,
      },
    });
  } catch (error) {
    // No order holds the reservation: give it back here.
    if (coupon) await releaseRedemption(db, coupon.id);
    throw error;
  }

  let session: { url: string; providerSessionId: string | null };
  try {
    session = await provider.createSession({
      orderId: order.id,
      productName: product.name,
      description: product.tagline,
      imageUrl: absoluteUrl(productIconPath(product.iconUrl)),
      unitAmountCents: priced.unitCents,
      quantity: order.quantity,
      discountCents: order.discountCents,
      couponCode: order.couponCode,
      amountCents: order.amountCents,
      currency: order.currency,
      buyerEmail: order.buyerEmail,
      expiresAt: order.expiresAt,
      destination: payoutAccountId && provider.name === "stripe" ? { accountId: payoutAccountId, applicationFeeCents: order.feeCents } : null,
      automaticTax: env().STRIPE_TAX === "on",
      subscription: priced.interval
        ? {
            interval: priced.interval,
            trialDays: priced.trialDays,
            coupon:
              coupon && priced.discountCents > 0
                ? {
                    discountCents: priced.discountCents,
                    duration: coupon.duration === "forever" ? "forever" : coupon.duration === "repeating" ? "repeating" : "once",
                    months: coupon.durationMonths,
                  }
                : null,
          }
        : null,
      metadata: {
        product_id: product.id,
        plugin_id: product.pluginId,
        quantity: String(order.quantity),
        ...(order.couponCode ? { coupon_code: order.couponCode } : {}),
        ...(order.agentId ? { agent_id: order.agentId } : {}),
      },
    });
  } catch (error) {
    console.error(`checkout ${order.id}: the payment provider refused or did not answer:`, (error as Error).message);
    await closeOrderNow(order.id, "failed");
    throw new AppError("payment_provider_unavailable", 502, "The payment provider could not open a checkout. Please retry in a moment.");
  }
  await db.order.update({ where: { id: order.id }, data: { checkoutUrl: session.url, providerSessionId: session.providerSessionId } });
  return { url: session.url, session_id: order.id };
}
