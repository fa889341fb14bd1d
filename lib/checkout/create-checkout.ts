import { getDb } from "../db.ts";
import { priceBundleSale } from "../bundles/bundle-sale.ts";
import { exhausted, releaseRedemption, reserveRedemption } from "../coupons/apply-coupon.ts";
import { payoutReady } from "../selling/publish-gate.ts";
import { env } from "../env.ts";
import { AppError, notFound } from "../http/errors.ts";
import { absoluteUrl, productIconPath } from "../urls.ts";
import { paymentProvider } from "../payments/provider.ts";
import { linkNotFound, linkRefusal, linkUsedUp, releaseLinkUse, reserveLinkUse } from "../links/link-uses.ts";
import { closeOrderNow, sweepExpiredCheckouts, sweepExpiredLinkCheckouts } from "./close-order.ts";
import { buyableProduct, priceCheckout, type BuyableProduct, type PricedCheckout, provenBuyer } from "./quote-checkout.ts";
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

/** An upgrade's checkout: the offer, the license it upgrades from, and its price for that license's seats. */
export interface CheckoutUpgrade {
  offerId: string;
  fromLicenseId: string;
  unitCents: number;
  seats: number;
}

/**
 * Takes one use of a checkout link for a new checkout, as reserve does a coupon's redemption: when none is left,
 * checkouts through the link that expired unpaid are swept and it tries once more. A link turned off meanwhile is 404
 * checkout_link_not_found, an expired one 410 checkout_link_expired, a used-up one 409 checkout_link_used_up.
 */
async function reserveLink(linkId: string, now: Date): Promise<void> {
  if (await reserveLinkUse(getDb(), linkId, now)) return;
  const link = await getDb().checkoutLink.findUnique({ where: { id: linkId }, select: { active: true, expiresAt: true } });
  const refusal = link ? linkRefusal(link, now) : linkNotFound();
  if (refusal) throw refusal;
  if ((await sweepExpiredLinkCheckouts([linkId], now)) > 0 && (await reserveLinkUse(getDb(), linkId, now))) return;
  throw linkUsedUp();
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
export async function createCheckout(
  input: CreateCheckoutRequest,
  now = new Date(),
  /** A checkout opened through a checkout link (lib/links): the order holds one of the link's uses and names it. */
  via: {
    checkoutLinkId?: string;
    upgrade?: CheckoutUpgrade;
    /**
     * The buyer signed in on this request (signedInBuyerEmail): a bundle is prorated only when it is the checkout's
     * own address, so typing someone's address never reveals, by the price, what they hold.
     */
    signedInBuyer?: string | null;
  } = {},
): Promise<{ url: string; session_id: string }> {
  const db = getDb();
  const product = await buyableProduct(input.product_id);
  const renewal = input.renew_license_key ? await renewable(product, input.renew_license_key) : null;
  // A bundle: every included product must still be sellable (409 bundle_item_unavailable, before anything is
  // created), and its price is prorated for a buyer who already holds some of them (lib/bundles).
  const bundle = product.isBundle ? await priceBundleSale(product, provenBuyer(input.buyer_email, via.signedInBuyer), now) : null;
  // An upgrade (lib/upgrades) is priced by its offer, per seat of the license it upgrades from, without a coupon.
  const upgrade = via.upgrade ?? null;
  const priced = upgrade
    ? await priceCheckout(product, upgrade.seats, undefined, now, undefined, upgrade.unitCents)
    : renewal
      ? await priceCheckout(product, renewal.seats, input.coupon_code, now, undefined, renewal.unitCents)
      : await priceCheckout(
          bundle ? { ...product, priceCents: bundle.unitCents } : product,
          input.quantity ?? 1,
          input.coupon_code,
          now,
          input.interval,
        );
  const provider = paymentProvider();
  const payoutAccountId = await salePayoutAccount(product.developerId, provider.name);

  const coupon = priced.coupon;
  const linkId = via.checkoutLinkId ?? null;
  if (linkId) await reserveLink(linkId, now);
  try {
    if (coupon) await reserve(coupon.id, coupon.code, now);
  } catch (error) {
    // The link's use was taken for a checkout that is not opened after all.
    if (linkId) await releaseLinkUse(db, linkId, true);
    throw error;
  }
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
        checkoutLinkId: linkId,
        upgradeOfferId: upgrade?.offerId ?? null,
        upgradeFromLicenseId: upgrade?.fromLicenseId ?? null,
      },
    });
  } catch (error) {
    // No order holds the reservations: give them back here.
    if (coupon) await releaseRedemption(db, coupon.id);
    if (linkId) await releaseLinkUse(db, linkId, true);
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
