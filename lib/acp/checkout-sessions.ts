import { randomBytes } from "node:crypto";
import { closeOrderNow, sweepExpiredCheckouts } from "../checkout/close-order.ts";
import { openOrderData, salePayoutAccount } from "../checkout/create-checkout.ts";
import { MAX_QUANTITY } from "../checkout/schemas.ts";
import { fulfilOrder } from "../checkout/fulfil-order.ts";
import { releaseRedemption, reserveRedemption } from "../coupons/apply-coupon.ts";
import { getDb } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import type { AcpCheckoutSession, Prisma } from "../generated/sqlite/client.ts";
import { AppError } from "../http/errors.ts";
import { formatPrice } from "../pricing.ts";
import { paymentProvider } from "../payments/provider.ts";
import { kickWebhooks } from "../webhooks/deliver.ts";
import { recordAcpOrderEvent } from "./order-events.ts";
import { preparePayment, type PreparedPayment } from "./payment.ts";
import type { CompleteSessionRequest, CreateSessionRequest, UpdateSessionRequest, AcpCheckoutSessionObject } from "./schemas.ts";
import { buyerOf, describeSession, isExpired, priceSession, providerOfHandler, sessionMetadata, type SessionMetadata } from "./serialize.ts";

/**
 * ACP checkout sessions (openapi.agentic_checkout.yaml): an agent buys one product, any number of seats, for a buyer
 * whose e-mail receives the key. The session is a row (AcpCheckoutSession) priced afresh on every read with the web
 * checkout's own rules (priceSession → priceCheckout), so the two can never disagree; completing it makes an Order
 * exactly as the web checkout does and fulfils it in one transaction with the payment's commit.
 *
 *   not_ready_for_payment ──(buyer e-mail)──▶ ready_for_payment ──complete──▶ in_progress ──▶ completed
 *            └──────────────┬───────────────────────┘                             │ (failure: back to ready)
 *                        cancel ──▶ canceled                        past expires_at: shown as expired
 *
 * Every transition is a conditional update on the status it leaves, so racing calls cannot both take it.
 */

/** How long a session stays open: a purchase an agent carries out in one go, with room for a person to confirm. */
const SESSION_TTL_MS = 24 * 3600_000;
/** Longer than a completion can take (the payment provider's timeout included): an older claim was abandoned. */
const STALE_CLAIM_MS = 2 * 60_000;
/** The order a completion makes is paid at once; this only bounds how long a crashed completion's order stays open. */
const ORDER_TTL_MS = 3600_000;

const OPEN = ["not_ready_for_payment", "ready_for_payment"];
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** "acs_" and 24 base-62 characters (~143 bits): the id is the only handle, like a hosted checkout's. */
function newAcpSessionId(): string {
  let out = "acs_";
  while (out.length < 28) for (const byte of randomBytes(32)) if (byte < 248 && out.length < 28) out += ALPHABET.charAt(byte % 62);
  return out;
}

export interface Agent {
  platformId: string | null;
  name: string;
}

const field = (name: string, message: string) => ({ errors: [{ in: "body", name, message }] });

const notFound = () =>
  new AppError("checkout_session_not_found", 404, "No checkout session of yours has this id.", {
    errors: [{ in: "path", name: "checkout_session_id", message: "is not a checkout session of yours" }],
  });

/** The documented refusal for acting on a session in a state that does not allow it. */
function stateError(session: AcpCheckoutSession, now: Date, action: "update" | "complete" | "cancel"): AppError {
  if (session.status === "completed")
    return action === "cancel"
      ? new AppError(
          "checkout_session_not_cancelable",
          405,
          "This checkout session is completed; a completed session cannot be canceled (ask the seller for a refund).",
        )
      : new AppError("checkout_session_completed", 409, "This checkout session is already completed; its order is in the session (GET it).");
  if (session.status === "canceled")
    return action === "cancel"
      ? new AppError("checkout_session_not_cancelable", 405, "This checkout session is already canceled.")
      : new AppError("checkout_session_canceled", 409, "This checkout session was canceled; create a new one.");
  if (session.status === "in_progress")
    return new AppError("checkout_session_in_progress", 409, "This checkout session is being completed by another request; GET it in a moment.", {
      headers: { "Retry-After": "1" },
    });
  if (isExpired(session, now)) return new AppError("checkout_session_expired", 409, "This checkout session expired; create a new one.");
  return new AppError("checkout_session_conflict", 409, "This checkout session changed meanwhile; GET it and retry.");
}

/** The caller's own session; another platform's (or, for an anonymous agent, a platform's) is indistinguishable from none. */
async function ownSession(id: string, agent: Agent): Promise<AcpCheckoutSession> {
  const session = await getDb().acpCheckoutSession.findUnique({ where: { id } });
  if (!session || session.platformId !== agent.platformId) throw notFound();
  return session;
}

/** One product per session: the items must all name it; their quantities (default 1) add up to the seats. */
function oneProduct(items: CreateSessionRequest["line_items"]): { productId: string; quantity: number } {
  const ids = [...new Set(items.map((i) => i.id))];
  if (ids.length > 1)
    throw new AppError(
      "multiple_items_not_supported",
      400,
      `A checkout session buys one product (any number of seats); these line items name ${ids.length} (${ids.slice(0, 5).join(", ")}). Open one session per product.`,
      field("line_items", "must all name the same product"),
    );
  const quantity = items.reduce((n, i) => n + (i.quantity ?? 1), 0);
  if (quantity > MAX_QUANTITY)
    throw new AppError(
      "quantity_too_large",
      400,
      `At most ${MAX_QUANTITY} seats per checkout session, as on the web.`,
      field("line_items.0.quantity", `at most ${MAX_QUANTITY} in all`),
    );
  const [productId = ""] = ids;
  return { productId, quantity };
}

/** Prices a session's product and seats now, naming the request field to blame when that is impossible. */
async function checkPrice(productId: string, quantity: number, codes: string[], now: Date) {
  try {
    return await priceSession(productId, quantity, codes, now);
  } catch (error) {
    if (error instanceof AppError && error.code === "product_not_found")
      throw new AppError("invalid_item_id", 400, error.detail, field("line_items.0.id", "is not a listed product"));
    if (error instanceof AppError && error.code === "quantity_not_allowed")
      throw new AppError(error.code, 400, error.detail, field("line_items.0.quantity", "must be 1 for this product"));
    throw error;
  }
}

function checkCurrency(requested: string, productCurrency: string): void {
  if (requested.toLowerCase() !== productCurrency.toLowerCase())
    throw new AppError(
      "currency_mismatch",
      400,
      `This product is priced in ${productCurrency.toUpperCase()}; send currency "${productCurrency.toLowerCase()}".`,
      field("currency", `must be ${productCurrency.toLowerCase()}`),
    );
}

/** The discount codes a create or update request carries (discounts.codes, or the older coupons), if any. */
export const codesOf = (req: { discounts?: { codes: string[] }; coupons?: string[] }): string[] | undefined => req.discounts?.codes ?? req.coupons;

const json = (value: unknown) => value as Prisma.InputJsonValue;

export async function createSession(req: CreateSessionRequest, agent: Agent, now = new Date()): Promise<AcpCheckoutSessionObject> {
  paymentProvider(); // 503 checkout_not_configured when nothing can be paid here: no session that can never complete
  const { productId, quantity } = oneProduct(req.line_items);
  const codes = codesOf(req) ?? [];
  const price = await checkPrice(productId, quantity, codes, now);
  checkCurrency(req.currency, price.product.currency);
  const metadata: SessionMetadata = {
    ...(codes.length ? { discount_codes: codes } : {}),
    ...(req.affiliate_attribution ? { affiliate_attribution: req.affiliate_attribution } : {}),
    ...(req.metadata ? { agent_metadata: req.metadata } : {}),
    ...(req.locale ? { locale: req.locale } : {}),
    ...(req.order_notes ? { order_notes: req.order_notes } : {}),
  };
  const session = await getDb().acpCheckoutSession.create({
    data: {
      id: newAcpSessionId(),
      platformId: agent.platformId,
      status: req.buyer ? "ready_for_payment" : "not_ready_for_payment",
      productId,
      quantity,
      couponCode: price.priced.coupon?.code ?? null,
      shownTotalCents: price.priced.amountCents,
      currency: price.product.currency.toLowerCase(),
      ...(req.buyer ? { buyer: json(req.buyer) } : {}),
      metadata: json(metadata),
      expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
    },
  });
  return describeSession(session, now);
}

export async function getSession(id: string, agent: Agent, now = new Date()): Promise<AcpCheckoutSessionObject> {
  return describeSession(await ownSession(id, agent), now);
}

export async function updateSession(id: string, req: UpdateSessionRequest, agent: Agent, now = new Date()): Promise<AcpCheckoutSessionObject> {
  const session = await ownSession(id, agent);
  if (!OPEN.includes(session.status) || isExpired(session, now)) throw stateError(session, now, "update");
  const target = req.line_items ? oneProduct(req.line_items) : { productId: session.productId, quantity: session.quantity };
  const meta = sessionMetadata(session);
  const codes = codesOf(req) ?? meta.discount_codes ?? [];
  const price = await checkPrice(target.productId, target.quantity, codes, now);
  checkCurrency(session.currency, price.product.currency);
  const buyer = req.buyer ?? buyerOf(session);
  const metadata: SessionMetadata = {
    ...meta,
    discount_codes: codes,
    ...(req.order_notes ? { order_notes: req.order_notes } : {}),
  };
  // Only while still open: a racing complete or cancel that took the session first wins.
  const { count } = await getDb().acpCheckoutSession.updateMany({
    where: { id, status: { in: OPEN }, expiresAt: { gt: now } },
    data: {
      productId: target.productId,
      quantity: target.quantity,
      couponCode: price.priced.coupon?.code ?? null,
      shownTotalCents: price.priced.amountCents,
      ...(req.buyer ? { buyer: json(req.buyer) } : {}),
      status: buyer ? "ready_for_payment" : "not_ready_for_payment",
      metadata: json(metadata),
    },
  });
  const after = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id } });
  if (count === 0) throw stateError(after, now, "update");
  return describeSession(after, now);
}

export async function cancelSession(id: string, intentTrace: unknown, agent: Agent, now = new Date()): Promise<AcpCheckoutSessionObject> {
  const session = await ownSession(id, agent);
  if (!OPEN.includes(session.status)) throw stateError(session, now, "cancel");
  const metadata: SessionMetadata = { ...sessionMetadata(session), ...(intentTrace ? { intent_trace: intentTrace } : {}) };
  const { count } = await getDb().acpCheckoutSession.updateMany({
    where: { id, status: { in: OPEN } },
    data: { status: "canceled", metadata: json(metadata) },
  });
  const after = await getDb().acpCheckoutSession.findUniqueOrThrow({ where: { id } });
  if (count === 0) throw stateError(after, now, "cancel");
  return describeSession(after, now);
}

/** The provider and token a complete request pays with, or a refusal naming the field. */
function paymentOf(req: CompleteSessionRequest): { provider: "test" | "stripe"; token: string; billing_address?: unknown } {
  const data = req.payment_data;
  const token = data.instrument?.credential.token;
  if (!data.handler_id || !token)
    throw new AppError(
      "payment_data_unsupported",
      400,
      "Pay with a delegated token: payment_data {handler_id (one of the session's capabilities.payment.handlers), instrument {type: card, credential {type, token}}}. Purchase orders are not accepted.",
      field(data.handler_id ? "payment_data.instrument" : "payment_data.handler_id", "is required"),
    );
  const provider = providerOfHandler(data.handler_id);
  if (!provider)
    throw new AppError(
      "payment_handler_unsupported",
      400,
      `The payment handler "${data.handler_id}" is not accepted here; use one of the session's capabilities.payment.handlers.`,
      field("payment_data.handler_id", "is not one of the session's payment handlers"),
    );
  return { provider, token, ...(data.billing_address ? { billing_address: data.billing_address } : {}) };
}

/**
 * The refusal of a complete whose total is not the one the agent was last shown (a coupon used up or expired since,
 * a price change): nothing is charged, and the session stays open for the agent to read (GET or update), which
 * shows the new total and makes it the one a next complete charges.
 */
function totalChanged(session: AcpCheckoutSession, total: number | null): AppError {
  const shown = session.shownTotalCents;
  const now = total === null ? "can no longer be charged as shown" : `is now ${formatPrice(total, session.currency)}`;
  return new AppError(
    "checkout_session_total_changed",
    409,
    `The total changed since this checkout session was last shown${shown === null ? "" : ` (${formatPrice(shown, session.currency)})`}: it ${now}. Nothing was charged. Read the session again (GET /api/acp/checkout_sessions/${session.id}, or get_checkout_session) to see the new total and confirm it with the buyer, then complete it again.`,
  );
}

/** Takes one redemption of the coupon for the order, as the web checkout does (sweeping expired checkouts once if full). */
async function reserveCoupon(couponId: string, now: Date): Promise<boolean> {
  if (await reserveRedemption(getDb(), couponId)) return true;
  return (await sweepExpiredCheckouts([couponId], now)) > 0 && (await reserveRedemption(getDb(), couponId));
}

/**
 * Completes a session: claims it (ready_for_payment → in_progress, one conditional update: of racing completes exactly
 * one proceeds, the others get 409 checkout_session_in_progress or, later, checkout_session_completed), prices it
 * afresh and refuses (409 checkout_session_total_changed, nothing charged) unless that is the total the agent was last
 * shown, makes the order as the web checkout would (price, coupon redemption, platform fee, the seller's payout
 * account), has the payment prepared (lib/acp/payment.ts: a test vault token checked, or a Stripe PaymentIntent
 * confirmed), then in one transaction commits the payment, fulfils the order (ledger, license, e-mail), marks the
 * session completed and queues the platform's order_create webhook. Any failure gives the payment back (abort),
 * closes the order (releasing the coupon) and reopens the session, so the agent can retry with another token.
 */
export async function completeSession(id: string, req: CompleteSessionRequest, agent: Agent, now = new Date()): Promise<AcpCheckoutSessionObject> {
  const db = getDb();
  let session = await ownSession(id, agent);
  // A claim older than STALE_CLAIM_MS without an order belongs to a completion whose process died mid-way (its
  // payment never committed: the commit and the completion are one transaction): reopen it, so this retry can claim it.
  if (session.status === "in_progress" && !session.orderId && session.updatedAt.getTime() < now.getTime() - STALE_CLAIM_MS) {
    await db.acpCheckoutSession.updateMany({
      where: { id, status: "in_progress", orderId: null, updatedAt: session.updatedAt },
      data: { status: "ready_for_payment" },
    });
    session = await ownSession(id, agent);
  }
  if (!OPEN.includes(session.status) || isExpired(session, now)) throw stateError(session, now, "complete");
  const payment = paymentOf(req);
  const provider = paymentProvider();

  if (req.buyer) {
    const { count } = await db.acpCheckoutSession.updateMany({
      where: { id, status: { in: OPEN } },
      data: { buyer: json(req.buyer), status: "ready_for_payment" },
    });
    session = await db.acpCheckoutSession.findUniqueOrThrow({ where: { id } });
    if (count === 0) throw stateError(session, now, "complete");
  }
  const buyer = buyerOf(session);
  if (!buyer)
    throw new AppError(
      "buyer_email_required",
      400,
      "The buyer's e-mail address is needed before payment (the license key and receipt are sent to it): update the session with buyer.email, or send buyer with complete.",
      field("buyer.email", "is required"),
    );

  const claimed = await db.acpCheckoutSession.updateMany({
    where: { id, status: "ready_for_payment", expiresAt: { gt: now } },
    data: { status: "in_progress" },
  });
  if (claimed.count === 0) throw stateError(await db.acpCheckoutSession.findUniqueOrThrow({ where: { id } }), now, "complete");
  // Claimed: nothing changes the session now (updates and reads record what they show only while it is open), so its
  // shownTotalCents is the total the agent last saw.
  session = await db.acpCheckoutSession.findUniqueOrThrow({ where: { id } });

  let orderId: string | null = null;
  let couponReserved: string | null = null;
  let prepared: PreparedPayment | null = null;
  let committed = false;
  try {
    const { product, priced } = await checkPrice(session.productId, session.quantity, sessionMetadata(session).discount_codes ?? [], now);
    const payoutAccountId = await salePayoutAccount(product.developerId, provider.name);
    // Only the total the agent was shown is charged: a coupon dropped since (used up, expired) or a new price is refused.
    if (session.shownTotalCents !== priced.amountCents) throw totalChanged(session, priced.amountCents);
    const coupon = priced.coupon;
    if (coupon) {
      // Lost to a racing order between pricing and now: the shown total cannot be charged either.
      if (!(await reserveCoupon(coupon.id, now))) throw totalChanged(session, null);
      couponReserved = coupon.id;
    }
    const order = await db.order.create({
      data: openOrderData({
        product,
        priced,
        buyerEmail: buyer.email,
        agentId: `acp:${agent.platformId ?? "anonymous"}`,
        provider: provider.name,
        payoutAccountId,
        expiresAt: new Date(now.getTime() + ORDER_TTL_MS),
      }),
    });
    orderId = order.id;
    couponReserved = null; // the order holds the redemption now: closing it gives it back

    prepared = await preparePayment({
      checkoutSessionId: id,
      platformId: agent.platformId,
      orderId: order.id,
      amountCents: order.amountCents,
      currency: order.currency,
      buyerEmail: order.buyerEmail,
      payment,
      destination: payoutAccountId && provider.name === "stripe" ? { accountId: payoutAccountId, applicationFeeCents: order.feeCents } : null,
      metadata: {
        order_id: order.id,
        checkout_session_id: id,
        product_id: product.id,
        plugin_id: product.pluginId,
        quantity: String(order.quantity),
        ...(order.couponCode ? { coupon_code: order.couponCode } : {}),
      },
    });
    const pay = prepared;
    await db.$transaction(async (tx) => {
      await pay.commit(tx, order.id);
      const f = await fulfilOrder(tx, order.id, now, { providerPaymentId: pay.providerPaymentId });
      // Suspended or removed since it was priced a moment ago: thrown, so the payment is given back (abort) as for any
      // failure, and nothing of the sale commits.
      if (f.refused) {
        throw new AppError(
          "invalid_item_id",
          400,
          `The product "${product.id}" can no longer be bought (${f.refused}); the payment is given back.`,
          field("line_items.0.id", "is not a listed product"),
        );
      }
      const paid = await tx.order.findUniqueOrThrow({ where: { id: order.id }, select: { status: true } });
      if (paid.status !== "paid") throw new Error(`order ${order.id} is ${paid.status} after fulfilment`);
      const done = await tx.acpCheckoutSession.updateMany({ where: { id, status: "in_progress" }, data: { status: "completed", orderId: order.id } });
      if (done.count !== 1) throw new Error(`checkout session ${id} left in_progress during its completion`);
      await recordAcpOrderEvent(tx, order.id, "order_create");
    });
    committed = true;
  } catch (error) {
    if (prepared && !committed) await prepared.abort(error instanceof Error ? error.message : String(error));
    if (orderId) await closeOrderNow(orderId, "failed").catch((e: unknown) => console.error(`order ${orderId}: could not be closed:`, e));
    if (couponReserved) await releaseRedemption(db, couponReserved).catch(() => undefined);
    await db.acpCheckoutSession.updateMany({ where: { id, status: "in_progress" }, data: { status: "ready_for_payment" } });
    throw error;
  }
  kickOutbox();
  kickWebhooks();
  return describeSession(await db.acpCheckoutSession.findUniqueOrThrow({ where: { id } }), now);
}
