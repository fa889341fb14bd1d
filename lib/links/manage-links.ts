import { getDb } from "../db.ts";
import { sweepExpiredLinkCheckouts } from "../checkout/close-order.ts";
import { createCheckout } from "../checkout/create-checkout.ts";
import { SEAT_PRICED, quoteCheckout } from "../checkout/quote-checkout.ts";
import { assertAboveMinimum, atLimit, discountFor, findUsableCoupon } from "../coupons/apply-coupon.ts";
import { AppError, notFound } from "../http/errors.ts";
import { checkoutPrice, INTERVALS, type Interval } from "../subscriptions/plans.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { linkAtLimit, linkNotFound, linkRefusal, linkUsedUp } from "./link-uses.ts";
import type { CheckoutLinkOut, CreateCheckoutLinkInput, PublicCheckoutLink, PublicLinkParams, UpdateCheckoutLinkInput } from "./schemas.ts";

const isUniqueViolation = (e: unknown) => (e as { code?: string } | null)?.code === "P2002";

/** A seller may make links for products they can still sell: listed, or unlisted (made ready before listing). */
const LINKABLE_STATUSES = ["active", "unlisted"];

const intervalOf = (value: string | null): Interval | undefined => INTERVALS.find((i) => i === value);

type LinkRow = Awaited<ReturnType<typeof findLinkRow>>;
const findLinkRow = (where: { id: string; developerId: string }) =>
  getDb().checkoutLink.findFirst({ where, include: { product: { select: { name: true, currency: true } } } });

function toLinkOut(l: NonNullable<LinkRow>): CheckoutLinkOut {
  return {
    id: l.id,
    product_id: l.productId,
    product_name: l.product.name,
    name: l.name,
    slug: l.slug,
    url: absoluteUrl(paths.checkoutLink(l.developerId, l.slug)),
    quantity: l.quantity,
    coupon_code: l.couponCode,
    interval: intervalOf(l.interval) ?? null,
    currency: l.product.currency,
    expires_at: l.expiresAt?.toISOString() ?? null,
    max_uses: l.maxUses,
    uses: l.uses,
    visits: l.visits,
    checkouts: l.checkouts,
    sales: l.sales,
    active: l.active,
    created_at: l.createdAt.toISOString(),
  };
}

/** An expiry the seller sets must be ahead: a past one would make a link that never sells (turn it off instead). */
function assertFuture(expiresAt: string | null | undefined, now: Date): void {
  if (expiresAt && new Date(expiresAt).getTime() <= now.getTime()) {
    throw new AppError("invalid_body", 400, 'Invalid field "expires_at": must be in the future', {
      errors: [{ in: "body", name: "expires_at", message: "must be in the future" }],
    });
  }
}

const couponRefused = (code: string) =>
  new AppError(
    "coupon_not_found",
    400,
    `You have no active coupon "${code}" that applies to this product and can still be redeemed: create it on the Coupons page, or leave the coupon out.`,
    { errors: [{ in: "body", name: "coupon_code", message: "must be one of your active coupons for this product" }] },
  );

/**
 * Checks what a link would sell before it is made, with the rules a checkout applies, so a link that could never
 * sell is refused now rather than in front of a buyer: seats only for per-seat and per-user products, an interval
 * only the subscription offers, a coupon of the seller's that applies to this product and is not used up, and a
 * discounted price not under the smallest card payment. The checkout checks all of it again (the coupon may expire or
 * run out meanwhile).
 */
async function checkPresets(developerId: string, input: CreateCheckoutLinkInput, now: Date): Promise<{ id: string }> {
  const db = getDb();
  const product = await db.product.findFirst({
    where: { id: input.product_id, developerId, status: { in: LINKABLE_STATUSES } },
    select: {
      id: true,
      developerId: true,
      currency: true,
      seatModel: true,
      pricingModel: true,
      priceCents: true,
      monthlyPriceCents: true,
      yearlyPriceCents: true,
      renewalPriceCents: true,
    },
  });
  if (!product) throw notFound("product", "You have no listed or unlisted product with this id.");
  if (input.quantity !== 1 && !SEAT_PRICED.has(product.seatModel)) {
    throw new AppError(
      "quantity_not_allowed",
      400,
      `This product is licensed ${product.seatModel}, so it is bought one license at a time; only per-seat and per-user products take a quantity.`,
    );
  }
  const { unitCents } = checkoutPrice(product, input.interval ?? undefined);
  if (input.coupon_code) {
    const coupon = await findUsableCoupon(db, input.coupon_code, product, now).catch((error: unknown) => {
      if (error instanceof AppError && error.code === "coupon_not_found") throw couponRefused(input.coupon_code ?? "");
      throw error;
    });
    if (atLimit(coupon)) throw couponRefused(coupon.code);
    const subtotal = unitCents * input.quantity;
    const discount = discountFor(coupon, subtotal);
    if (discount > 0) assertAboveMinimum(subtotal - discount, product.currency, coupon.code);
  }
  return product;
}

/**
 * Makes a checkout link for one of the seller's products. A slug the seller already uses is 409 link_slug_taken;
 * another seller's product (or an unknown or removed one) is 404 product_not_found; a coupon that is not the seller's
 * or does not apply is 400 coupon_not_found.
 */
export async function createCheckoutLink(developerId: string, input: CreateCheckoutLinkInput, now = new Date()): Promise<CheckoutLinkOut> {
  assertFuture(input.expires_at, now);
  const product = await checkPresets(developerId, input, now);
  try {
    const link = await getDb().checkoutLink.create({
      data: {
        developerId,
        productId: product.id,
        slug: input.slug,
        name: input.name,
        quantity: input.quantity,
        couponCode: input.coupon_code ?? null,
        interval: input.interval ?? null,
        expiresAt: input.expires_at ? new Date(input.expires_at) : null,
        maxUses: input.max_uses ?? null,
      },
      include: { product: { select: { name: true, currency: true } } },
    });
    return toLinkOut(link);
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("link_slug_taken", 409, `You already have a checkout link with the slug "${input.slug}".`);
    throw error;
  }
}

/**
 * The seller's links, newest first, with their counters. Checkouts through them that expired unpaid are closed first,
 * so the uses shown are what is really held.
 */
export async function listCheckoutLinks(developerId: string): Promise<CheckoutLinkOut[]> {
  const db = getDb();
  const ids = (await db.checkoutLink.findMany({ where: { developerId, active: true }, select: { id: true } })).map((l) => l.id);
  await sweepExpiredLinkCheckouts(ids);
  const links = await db.checkoutLink.findMany({
    where: { developerId },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: 500,
    include: { product: { select: { name: true, currency: true } } },
  });
  return links.map(toLinkOut);
}

/**
 * Changes a link's name, expiry, use limit or whether it is active. Its presets (product, seats, coupon, interval)
 * stay: a different price is a different link. Another seller's link (or an unknown id) is 404, the same answer.
 */
export async function updateCheckoutLink(
  developerId: string,
  linkId: string,
  input: UpdateCheckoutLinkInput,
  now = new Date(),
): Promise<CheckoutLinkOut> {
  assertFuture(input.expires_at, now);
  const n = await getDb().checkoutLink.updateMany({
    where: { id: linkId, developerId },
    data: {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.expires_at !== undefined ? { expiresAt: input.expires_at ? new Date(input.expires_at) : null } : {}),
      ...(input.max_uses !== undefined ? { maxUses: input.max_uses } : {}),
      ...(input.active !== undefined ? { active: input.active } : {}),
    },
  });
  const link = n.count > 0 ? await findLinkRow({ id: linkId, developerId }) : null;
  if (!link) throw notFound("checkout_link", "You have no checkout link with this id.");
  return toLinkOut(link);
}

/**
 * The link at a public address, if it may sell now: unknown or turned off is 404 checkout_link_not_found, past its
 * expiry 410 checkout_link_expired, every use taken 409 checkout_link_used_up (after closing the checkouts through it
 * that expired unpaid, which still held uses).
 */
async function usableLink(at: PublicLinkParams, now: Date) {
  const db = getDb();
  const link = await db.checkoutLink.findUnique({ where: { developerId_slug: { developerId: at.developer_id, slug: at.slug } } });
  if (!link) throw linkNotFound();
  const refusal = linkRefusal(link, now);
  if (refusal) throw refusal;
  if (linkAtLimit(link)) {
    const swept = await sweepExpiredLinkCheckouts([link.id], now);
    if (swept === 0 || linkAtLimit(await db.checkoutLink.findUniqueOrThrow({ where: { id: link.id } }))) throw linkUsedUp();
  }
  return link;
}

const presetsOf = (link: { productId: string; quantity: number; couponCode: string | null; interval: string | null }) => ({
  product_id: link.productId,
  quantity: link.quantity,
  ...(link.couponCode ? { coupon_code: link.couponCode } : {}),
  ...(intervalOf(link.interval) ? { interval: intervalOf(link.interval) } : {}),
});

/**
 * What a buyer sees at a link's address: the product, the seller, and the price a purchase through it costs, priced
 * by the checkout's own quote (seats, coupon, interval). Counts one visit; a link that cannot sell is refused as
 * usableLink says, and one whose product or coupon cannot be sold any more as the checkout would refuse it.
 */
export async function viewCheckoutLink(at: PublicLinkParams, now = new Date()): Promise<PublicCheckoutLink> {
  const db = getDb();
  const link = await usableLink(at, now);
  const quote = await quoteCheckout(presetsOf(link), now);
  const [product, developer] = await Promise.all([
    db.product.findUniqueOrThrow({ where: { id: link.productId }, select: { id: true, name: true, tagline: true, iconUrl: true } }),
    db.developer.findUniqueOrThrow({ where: { id: link.developerId }, select: { name: true } }),
  ]);
  await db.checkoutLink.updateMany({ where: { id: link.id }, data: { visits: { increment: 1 } } });
  return {
    developer_id: link.developerId,
    developer_name: developer.name,
    slug: link.slug,
    product: { id: product.id, name: product.name, tagline: product.tagline, icon_url: product.iconUrl },
    expires_at: link.expiresAt?.toISOString() ?? null,
    quote,
    checkout_url: absoluteUrl(`/api/checkout-links/${encodeURIComponent(link.developerId)}/${encodeURIComponent(link.slug)}/checkout`),
  };
}

/**
 * Opens the checkout a link sells: the same checkout as the product page (createCheckout), with the link's seats,
 * coupon and interval, holding one of the link's uses and naming the link on the order. A refused link opens nothing.
 */
export async function startCheckoutLink(at: PublicLinkParams, buyerEmail: string, now = new Date()): Promise<{ url: string; session_id: string }> {
  const link = await usableLink(at, now);
  return createCheckout({ ...presetsOf(link), buyer_email: buyerEmail }, now, { checkoutLinkId: link.id });
}
