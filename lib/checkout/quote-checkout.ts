import { getDb } from "../db.ts";
import { bundleQuote, priceBundleSale } from "../bundles/bundle-sale.ts";
import { assertAboveMinimum, atLimit, discountFor, exhausted, findUsableCoupon } from "../coupons/apply-coupon.ts";
import type { Coupon } from "../generated/sqlite/client.ts";
import { env } from "../env.ts";
import { AppError, notFound } from "../http/errors.ts";
import { platformFeeCents } from "../pricing.ts";
import { paymentMode } from "../payments/provider.ts";
import { checkoutPrice, type Interval } from "../subscriptions/plans.ts";
import { sweepExpiredCheckouts } from "./close-order.ts";
import { saleRefusal } from "./sale-refusal.ts";
import type { CheckoutQuote, CheckoutQuoteRequest } from "./schemas.ts";

/** Seat models sold by the seat: the buyer chooses how many. */
export const SEAT_PRICED: ReadonlySet<string> = new Set(["per-seat", "per-user"]);

// The one rule for "may this product be sold now" lives in its own file, so the bundles domain can read it too.
export { saleRefusal, type SaleRefusal } from "./sale-refusal.ts";

/** A listed product with what pricing a purchase needs. */
export async function buyableProduct(productId: string) {
  const found = await getDb().product.findUnique({
    where: { id: productId },
    select: {
      id: true,
      developerId: true,
      name: true,
      tagline: true,
      iconUrl: true,
      priceCents: true,
      currency: true,
      pricingModel: true,
      monthlyPriceCents: true,
      yearlyPriceCents: true,
      renewalPriceCents: true,
      subscriptionTrialDays: true,
      pluginId: true,
      maxMachines: true,
      seatModel: true,
      isBundle: true,
      bundleProrate: true,
      status: true,
      developer: { select: { suspendedAt: true } },
    },
  });
  if (!found || saleRefusal(found)) throw notFound("product", `No listed product has the id "${productId}"; unlisted products cannot be bought.`);
  const { status: _status, developer: _developer, ...product } = found;
  return product;
}
export type BuyableProduct = Awaited<ReturnType<typeof buyableProduct>>;

export interface PricedCheckout {
  /** The price of one seat: the product's, or its interval's for a subscription. */
  unitCents: number;
  /** A subscription's billing interval; null for a sale made once. */
  interval: Interval | null;
  /** A subscription's free days: nothing is charged now, amountCents at their end. */
  trialDays: number;
  quantity: number;
  subtotalCents: number;
  discountCents: number;
  amountCents: number;
  feeCents: number;
  coupon: Coupon | null;
}

/**
 * The one price computation, shared by the quote and the checkout so they can never disagree: unit price × quantity
 * (more than one only for per-seat and per-user products, else 400 quantity_not_allowed), less the coupon (see
 * findUsableCoupon for its refusals), never below the currency's minimum charge (400 amount_below_minimum); the
 * platform fee is on what is paid, after the discount and before tax.
 */
export async function priceCheckout(
  product: BuyableProduct,
  quantity = 1,
  couponCode?: string,
  now = new Date(),
  interval?: Interval,
  /** An updates plan's renewal: this price of a seat instead of the product's, for the license's seats. */
  renewalUnitCents?: number,
): Promise<PricedCheckout> {
  const { unitCents, interval: chosen } =
    renewalUnitCents !== undefined ? { unitCents: renewalUnitCents, interval: null } : checkoutPrice(product, interval);
  if (quantity !== 1 && renewalUnitCents === undefined && !SEAT_PRICED.has(product.seatModel)) {
    throw new AppError(
      "quantity_not_allowed",
      400,
      `This product is licensed ${product.seatModel}, so it is bought one license at a time; only per-seat and per-user products take a quantity.`,
    );
  }
  const subtotalCents = unitCents * quantity;
  let coupon = couponCode ? await findUsableCoupon(getDb(), couponCode, product, now) : null;
  if (coupon && atLimit(coupon)) {
    // Checkouts that expired unpaid may still hold redemptions (test mode has no expiry event): close them, look again.
    if ((await sweepExpiredCheckouts([coupon.id], now)) > 0) coupon = await getDb().coupon.findUniqueOrThrow({ where: { id: coupon.id } });
    if (atLimit(coupon)) throw exhausted(coupon.code);
  }
  const discountCents = coupon ? discountFor(coupon, subtotalCents) : 0;
  const amountCents = subtotalCents - discountCents;
  if (coupon && discountCents > 0) assertAboveMinimum(amountCents, product.currency, coupon.code);
  const trialDays = chosen ? product.subscriptionTrialDays : 0;
  return {
    unitCents,
    interval: chosen,
    trialDays,
    quantity,
    subtotalCents,
    discountCents,
    amountCents,
    feeCents: platformFeeCents(amountCents),
    coupon,
  };
}

/**
 * The checkout's address when the buyer signed in on the request is its holder, else null: a bundle is prorated only
 * for it, so the price never tells someone who merely typed an address what that address holds.
 */
export function provenBuyer(buyerEmail: string | undefined, signedIn: string | null | undefined): string | null {
  return buyerEmail && signedIn && buyerEmail.trim().toLowerCase() === signedIn ? signedIn : null;
}

/** What a purchase would cost, without opening a checkout or reserving the coupon: for the Buy form and for agents. */
export async function quoteCheckout(input: CheckoutQuoteRequest, now = new Date(), signedInBuyer: string | null = null): Promise<CheckoutQuote> {
  const product = await buyableProduct(input.product_id);
  // A bundle is priced as the checkout prices it: its items checked, prorated for a buyer who holds some of them.
  const bundle = product.isBundle ? await priceBundleSale(product, provenBuyer(input.buyer_email, signedInBuyer), now) : null;
  const p = await priceCheckout(
    bundle ? { ...product, priceCents: bundle.unitCents } : product,
    input.quantity ?? 1,
    input.coupon_code,
    now,
    input.interval,
  );
  return {
    product_id: product.id,
    currency: product.currency,
    unit_price_cents: p.unitCents,
    quantity: p.quantity,
    subtotal_cents: p.subtotalCents,
    coupon_code: p.coupon?.code ?? null,
    discount_cents: p.discountCents,
    amount_cents: p.amountCents,
    fee_cents: p.feeCents,
    max_machines: product.maxMachines * p.quantity,
    tax: paymentMode().provider === "stripe" && env().STRIPE_TAX === "on" ? "calculated_at_checkout" : "not_calculated",
    interval: p.interval,
    trial_days: p.trialDays,
    ...(bundle ? { bundle: bundleQuote(bundle, p.quantity) } : {}),
  };
}
