import { getDb } from "../db.ts";
import type { AcpCheckoutSession } from "../generated/sqlite/client.ts";
import { AppError } from "../http/errors.ts";
import { isRecurring } from "../subscriptions/plans.ts";
import { priceBundleSale } from "../bundles/bundle-sale.ts";
import { buyableProduct, priceCheckout, type BuyableProduct, type PricedCheckout } from "../checkout/quote-checkout.ts";
import { env } from "../env.ts";
import { formatPrice, platformFeeCents, PRICING } from "../pricing.ts";
import { paymentMode } from "../payments/provider.ts";
import { absoluteUrl, paths, productIconPath } from "../urls.ts";
import { acpOrderObject } from "./order-object.ts";
import type { AcpCheckoutSessionObject } from "./schemas.ts";
import { ACP_API_VERSION } from "./version.ts";

/** The one fulfilment option a license has: the key, delivered in the order and by e-mail. */
const DIGITAL_OPTION = "digital_license";

/** ACP payment handler ids we offer, and the payment provider each pays through (lib/acp/payment.ts). */
const HANDLERS = {
  test_card: "test",
  stripe_spt: "stripe",
} as const;
type HandlerId = keyof typeof HANDLERS;

/** What the session keeps in AcpCheckoutSession.metadata (JSON). */
export interface SessionMetadata {
  /** The discount codes the agent asked for, in order (ACP discount extension). */
  discount_codes?: string[];
  affiliate_attribution?: unknown;
  agent_metadata?: unknown;
  locale?: string;
  order_notes?: string;
  intent_trace?: unknown;
}

export const sessionMetadata = (s: Pick<AcpCheckoutSession, "metadata">): SessionMetadata =>
  s.metadata && typeof s.metadata === "object" && !Array.isArray(s.metadata) ? s.metadata : {};

export const buyerOf = (s: Pick<AcpCheckoutSession, "buyer">): ({ email: string } & Record<string, unknown>) | null => {
  const b = s.buyer;
  return b && typeof b === "object" && !Array.isArray(b) && typeof (b as { email?: unknown }).email === "string"
    ? (b as { email: string } & Record<string, unknown>)
    : null;
};

/**
 * The payment handlers this deployment accepts, as ACP `PaymentHandler`s: in test mode the built-in test vault's
 * delegated tokens (delegate_payment, `vt_…`); with Stripe, Stripe Shared Payment Tokens (`spt_…`). None when no
 * provider is configured (checkout is off).
 */
function paymentHandlers(): Array<Record<string, unknown>> {
  const mode = paymentMode();
  const common = {
    name: "dev.acp.tokenized.card",
    version: "2026-01-22",
    spec: "https://acp.dev/handlers/tokenized.card",
    requires_delegate_payment: true,
    requires_pci_compliance: false,
    config_schema: "https://acp.dev/schemas/handlers/tokenized.card/config.json",
    instrument_schemas: ["https://acp.dev/schemas/handlers/tokenized.card/instrument.json"],
  };
  if (mode.provider === "test")
    return [
      {
        id: "test_card" satisfies HandlerId,
        display_name: "Test card (test mode: no money moves)",
        ...common,
        psp: "test",
        config: {
          environment: "test",
          credential_type: "vt",
          delegate_payment_url: absoluteUrl("/api/acp/agentic_commerce/delegate_payment"),
          instrument_type: "card",
        },
      },
    ];
  if (mode.provider === "stripe")
    return [
      {
        id: "stripe_spt" satisfies HandlerId,
        display_name: "Card (Stripe Shared Payment Token)",
        ...common,
        psp: "stripe",
        config: {
          environment: env().STRIPE_SECRET_KEY?.startsWith("sk_live_") ? "production" : "test",
          credential_type: "spt",
          instrument_type: "card",
        },
      },
    ];
  return [];
}

/** The payment provider a handler id pays through, if this deployment offers that handler now. */
export function providerOfHandler(handlerId: string): "test" | "stripe" | null {
  const provider = (HANDLERS as Record<string, "test" | "stripe" | undefined>)[handlerId];
  return provider !== undefined && paymentMode().provider === provider ? provider : null;
}

/**
 * ACP's RejectedDiscount reasons, from our coupon refusals (lib/coupons/apply-coupon.ts): an unknown, expired, used-up
 * or inapplicable code is one refusal there, so one reason here (discount_code_invalid), never the extension's finer
 * ones (expired, usage limit reached, ineligible), which would tell a guesser that a code exists.
 */
const REJECTION: Record<string, string> = {
  coupon_not_found: "discount_code_invalid",
  amount_below_minimum: "discount_code_minimum_not_met",
};

export interface SessionPrice {
  product: BuyableProduct;
  priced: PricedCheckout;
  rejected: Array<{ code: string; reason: string; message: string; index: number }>;
}

/**
 * Prices the session as the web checkout would (priceCheckout: seats, coupon, minimum charge). The discount codes
 * are tried in order: the first usable one applies (an order takes one coupon); each other is rejected with the
 * discount extension's reason. Throws what buyableProduct and priceCheckout throw for the product and quantity.
 */
export async function priceSession(productId: string, quantity: number, codes: string[], now = new Date()): Promise<SessionPrice> {
  const product = await buyableProduct(productId);
  // A bundle sells whole or not at all, as on the web: an included product that may not be sold now refuses the
  // session (409 bundle_item_unavailable) before it is made. An agent's buyer is not signed in: no proration.
  if (product.isBundle) await priceBundleSale(product, null, now);
  // ACP 2026-04-17 has no recurring payments: a subscription is bought on its product page, never as a one-off charge.
  if (isRecurring(product)) {
    throw new AppError(
      "recurring_not_supported",
      400,
      `"${product.id}" is sold as a subscription, which this protocol version cannot charge: the buyer can subscribe at ${absoluteUrl(paths.product(product.id))}.`,
      { errors: [{ in: "body", name: "items.0.id", message: "a subscription product" }] },
    );
  }
  const rejected: SessionPrice["rejected"] = [];
  let priced: PricedCheckout | null = null;
  for (const [index, raw] of codes.entries()) {
    const code = raw.toUpperCase();
    if (priced?.coupon) {
      rejected.push({
        code,
        index,
        reason: priced.coupon.code === code ? "discount_code_already_applied" : "discount_code_combination_disallowed",
        message:
          priced.coupon.code === code
            ? `The code "${code}" is already applied.`
            : `Only one discount code applies per order; "${priced.coupon.code}" is applied.`,
      });
      continue;
    }
    try {
      priced = await priceCheckout(product, quantity, code, now);
    } catch (error) {
      const reason = error instanceof AppError ? REJECTION[error.code] : undefined;
      if (!reason || !(error instanceof AppError)) throw error;
      rejected.push({ code, index, reason, message: error.detail });
    }
  }
  priced ??= await priceCheckout(product, quantity, undefined, now);
  return { product, priced, rejected };
}

type Total = { type: string; display_text: string; amount: number };

function totals(m: { subtotal: number; discount: number; amount: number; tax: number | null; code: string | null }): Total[] {
  return [
    { type: "items_base_amount", display_text: "Price", amount: m.subtotal },
    { type: "discount", display_text: m.code ? `Discount (${m.code})` : "Discount", amount: m.discount },
    { type: "subtotal", display_text: "Subtotal", amount: m.amount },
    { type: "tax", display_text: m.tax === null ? "Tax (not calculated: none added)" : "Tax", amount: m.tax ?? 0 },
    { type: "total", display_text: "Total", amount: m.amount + (m.tax ?? 0) },
  ];
}

const info = (content: string) => ({ type: "info" as const, content_type: "plain" as const, content });

/** The statuses of a session that can still be updated and completed. */
const OPEN_STATUSES = ["not_ready_for_payment", "ready_for_payment"];

/** When a session can no longer be used: its expiry passed while still open. */
export const isExpired = (s: Pick<AcpCheckoutSession, "status" | "expiresAt">, now: Date) =>
  (s.status === "not_ready_for_payment" || s.status === "ready_for_payment") && s.expiresAt.getTime() <= now.getTime();

/**
 * The ACP `CheckoutSession` for a stored session, priced now (or, once completed, as its order was charged, with the
 * order attached); for an open session, the total shown is recorded as the one complete may charge. The status shown
 * is the stored one, except that an open session past its expiry is `expired`, and an open one that cannot be paid
 * yet (no buyer e-mail, product no longer listed) is `not_ready_for_payment`.
 * The messages say what the totals leave out: the platform fee (the seller's cost) and tax (not calculated).
 */
export async function describeSession(session: AcpCheckoutSession, now = new Date()): Promise<AcpCheckoutSessionObject> {
  const meta = sessionMetadata(session);
  const buyer = buyerOf(session);
  const codes = meta.discount_codes ?? [];
  const messages: Array<Record<string, unknown>> = [];
  let status = session.status as AcpCheckoutSessionObject["status"];
  const product = await getDb().product.findUnique({
    where: { id: session.productId },
    select: { id: true, name: true, iconUrl: true, priceCents: true, category: true, developer: { select: { name: true } } },
  });
  if (!product) throw new Error(`checkout session ${session.id}: product ${session.productId} is gone`);

  let money: { subtotal: number; discount: number; amount: number; tax: number | null; code: string | null };
  let discounts: Record<string, unknown> | undefined;
  let order: Awaited<ReturnType<typeof acpOrderObject>> | undefined;

  if (session.orderId && (status === "completed" || status === "in_progress")) {
    const o = await getDb().order.findUniqueOrThrow({ where: { id: session.orderId } });
    money = { subtotal: o.subtotalCents, discount: o.discountCents, amount: o.amountCents, tax: o.taxCents, code: o.couponCode };
    if (status === "completed") order = await acpOrderObject(getDb(), o.id);
    if (codes.length) discounts = { codes, applied: [], rejected: [] };
  } else {
    let price: SessionPrice | null = null;
    if (status !== "canceled") {
      try {
        price = await priceSession(session.productId, session.quantity, codes, now);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        messages.push({
          type: "error",
          code: "invalid",
          param: "$.line_items[0]",
          resolution: "recoverable",
          content_type: "plain",
          content: error.detail,
        });
        if (status === "ready_for_payment") status = "not_ready_for_payment";
      }
    }
    const subtotal = price?.priced.subtotalCents ?? product.priceCents * session.quantity;
    const coupon = price?.priced.coupon ?? null;
    money = {
      subtotal,
      discount: price?.priced.discountCents ?? 0,
      amount: price?.priced.amountCents ?? subtotal,
      tax: null,
      code: coupon?.code ?? null,
    };
    if (codes.length || coupon) {
      discounts = {
        codes,
        applied: coupon
          ? [
              {
                id: `di_${coupon.id}`,
                code: coupon.code,
                coupon: {
                  id: coupon.id,
                  name: coupon.kind === "percent" ? `${coupon.percentOff}% off` : `${formatPrice(coupon.amountOffMinor ?? 0, session.currency)} off`,
                  ...(coupon.kind === "percent"
                    ? { percent_off: coupon.percentOff ?? 0 }
                    : { amount_off: coupon.amountOffMinor ?? 0, currency: session.currency }),
                  duration: "once",
                },
                amount: money.discount,
                method: "across",
              },
            ]
          : [],
        rejected: (price?.rejected ?? []).map((r) => ({ code: r.code, reason: r.reason, message: r.message })),
      };
      for (const r of price?.rejected ?? [])
        messages.push({ type: "warning", code: r.reason, param: `$.discounts.codes[${r.index}]`, content_type: "plain", content: r.message });
    }
    if (isExpired(session, now)) {
      status = "expired";
      messages.push({
        type: "error",
        code: "expired",
        resolution: "recoverable",
        content_type: "plain",
        content: "This checkout session expired; create a new one.",
      });
    } else if (!buyer && status !== "canceled") {
      status = "not_ready_for_payment";
      messages.push({
        type: "error",
        code: "missing",
        param: "$.buyer.email",
        resolution: "requires_buyer_input",
        content_type: "plain",
        content: "The buyer's e-mail address is needed before payment: the license key and the receipt are sent to it.",
      });
    }
  }

  // What an open session shows is what its complete may charge: record the total whenever it differs from the one
  // recorded (checkout-sessions.ts refuses a complete at any other total). updated_at stays: the session did not change.
  const shownTotal = money.amount + (money.tax ?? 0);
  if (OPEN_STATUSES.includes(session.status) && session.shownTotalCents !== shownTotal)
    await getDb().acpCheckoutSession.updateMany({
      where: { id: session.id, status: { in: OPEN_STATUSES } },
      data: { shownTotalCents: shownTotal, updatedAt: session.updatedAt },
    });

  const fee = platformFeeCents(money.amount);
  messages.unshift(
    info(
      `Amounts are in minor units of ${session.currency.toUpperCase()}. The marketplace's ${PRICING.transaction_fee_percent} % platform fee (about ${formatPrice(fee, session.currency)} here) is paid by the seller out of the subtotal; it is not added to your total. Tax is not calculated at session time, and none is added: the total is what is charged. The license key is delivered in the completed order and by e-mail to the buyer.`,
    ),
  );

  const sessionTotals = totals(money);
  const lineItemTotals = sessionTotals;
  const unit = Math.round(money.subtotal / Math.max(1, session.quantity));
  return {
    id: session.id,
    protocol: { version: ACP_API_VERSION },
    capabilities: {
      payment: { handlers: status === "completed" || status === "canceled" ? [] : paymentHandlers() },
      // We require no intervention (no 3-D Secure step), so the intersection with the agent's is empty.
      interventions: { supported: [], required: [] },
      extensions: [
        {
          name: "discount",
          extends: ["$.CheckoutSessionCreateRequest.discounts", "$.CheckoutSessionUpdateRequest.discounts", "$.CheckoutSession.discounts"],
        },
      ],
    },
    ...(buyer ? { buyer: buyerForResponse(buyer) } : {}),
    status,
    currency: session.currency,
    line_items: [
      {
        id: `li_${session.id}`,
        item: { id: product.id },
        quantity: session.quantity,
        name: product.name,
        images: [absoluteUrl(productIconPath(product.iconUrl))],
        unit_amount: unit,
        product_id: product.id,
        category: product.category,
        marketplace_seller_details: { name: product.developer.name },
        totals: lineItemTotals,
      },
    ],
    fulfillment_options: [
      {
        type: "digital",
        id: DIGITAL_OPTION,
        title: "License key, in the order and by e-mail",
        totals: [{ type: "total", display_text: "Delivery", amount: 0 }],
      },
    ],
    selected_fulfillment_options: [{ type: "digital", option_id: DIGITAL_OPTION, item_ids: [product.id] }],
    totals: sessionTotals,
    messages: messages as AcpCheckoutSessionObject["messages"],
    links: [
      { type: "terms_of_use", title: "Terms and pricing", url: absoluteUrl(paths.terms) },
      { type: "support", title: "Your licenses", url: absoluteUrl("/licenses") },
    ],
    ...(discounts ? { discounts } : {}),
    created_at: session.createdAt.toISOString(),
    updated_at: session.updatedAt.toISOString(),
    expires_at: session.expiresAt.toISOString(),
    ...(order ? { order: order as unknown as Record<string, unknown> & { id: string; checkout_session_id: string; permalink_url: string } } : {}),
  };
}

/** The buyer as ACP's Buyer allows it (only its own fields; anything else the agent sent stays stored, unshown). */
function buyerForResponse(b: Record<string, unknown>): { email: string } & Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["first_name", "last_name", "full_name", "email", "phone_number"]) if (typeof b[k] === "string") out[k] = b[k];
  return out as { email: string } & Record<string, string>;
}
