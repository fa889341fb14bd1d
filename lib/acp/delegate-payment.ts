import { randomInt } from "node:crypto";
import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { paymentMode } from "../payments/provider.ts";
import { luhnValid, TEST_CARDS } from "./test-cards.ts";

/**
 * The built-in test vault: ACP's `POST /agentic_commerce/delegate_payment` (openapi.delegate_payment.yaml) for the
 * test-mode payment provider. An agent hands over a card and an allowance; it gets back a vault token (`vt_…`) that
 * pays for exactly one checkout session, once, up to the allowance's amount in its currency, until it expires.
 * Only the documented test card numbers are accepted (lib/acp/test-cards.ts), and only brand, last four digits and
 * expiry are kept: the number and CVC are never stored or logged.
 */

/** Vault tokens: "vt_" and 24 random letters and digits. */
export const VAULT_TOKEN = /^vt_[A-Za-z0-9]{24}$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const newVaultToken = () => `vt_${Array.from({ length: 24 }, () => ALPHABET[randomInt(ALPHABET.length)]).join("")}`;

/** How far ahead an allowance may expire: a token is for finishing one purchase now, not for keeping. */
export const MAX_ALLOWANCE_MS = 24 * 60 * 60 * 1000;

const text = (max: number) => z.string().max(max);
/** ACP's string maps (metadata): bounded so a body cannot grow a row without limit. */
const stringMap = z.record(z.string().min(1).max(64), z.string().max(500)).refine((m) => Object.keys(m).length <= 50, "must have at most 50 entries");

const cardSchema = z
  .strictObject({
    type: z.literal("card").describe("Always card"),
    card_number_type: z.enum(["fpan", "network_token"]).describe("A raw card number (fpan) or a network token"),
    number: z.string().min(1).max(32).describe("The card number; the test vault takes only the documented test numbers"),
    exp_month: text(2).optional().describe("Two-digit expiry month (01–12)"),
    exp_year: text(4).optional().describe("Four-digit expiry year"),
    name: text(256).optional().describe("Cardholder name"),
    cvc: text(4).optional().describe("3 or 4 digits; never stored"),
    cryptogram: text(256).optional(),
    eci_value: text(2).optional(),
    checks_performed: z
      .array(z.enum(["avs", "cvv", "ani", "auth0"]))
      .max(4)
      .optional(),
    iin: text(8).optional().describe("The number's first digits"),
    display_card_funding_type: z.enum(["credit", "debit", "prepaid"]),
    display_wallet_type: text(64).optional(),
    display_brand: text(64).optional(),
    display_last4: z
      .string()
      .regex(/^[0-9]{4}$/, "must be 4 digits")
      .optional(),
    metadata: stringMap,
    virtual: z.boolean().optional(),
  })
  .describe("The card to vault (ACP PaymentMethodCard)");

const addressSchema = z.strictObject({
  name: text(256),
  line_one: text(60),
  line_two: text(60).optional(),
  city: text(60),
  state: text(60),
  country: z.string().length(2),
  postal_code: text(20),
});

const allowanceSchema = z
  .strictObject({
    reason: z.literal("one_time").describe("Only one_time: the token pays once"),
    max_amount: z.int().min(1).max(100_000_000).describe("The most the token may pay, in minor units"),
    currency: z
      .string()
      .regex(/^[a-z]{3}$/, "must be a lower-case ISO 4217 code")
      .describe("Lower-case ISO 4217; must be the checkout session's currency"),
    checkout_session_id: z.string().min(1).max(128).describe("The ACP checkout session (of the same caller) the token pays for"),
    merchant_id: text(256).describe("Echoed in the response's metadata"),
    expires_at: z.iso.datetime({ offset: true }).describe("RFC 3339; in the future and at most 24 hours ahead"),
  })
  .describe("What the token may pay for (ACP Allowance)");

export const delegatePaymentRequestSchema = z
  .strictObject({
    payment_method: cardSchema,
    allowance: allowanceSchema,
    billing_address: addressSchema.optional(),
    risk_signals: z
      .array(
        z.strictObject({
          type: z.literal("card_testing"),
          score: z.int(),
          action: z.enum(["blocked", "manual_review", "authorized"]),
        }),
      )
      .min(1)
      .max(20)
      .describe("At least one risk signal; a signal whose action is blocked is refused"),
    metadata: stringMap.describe("Your correlation fields; echoed in the response"),
  })
  .describe("ACP DelegatePaymentRequest");
type DelegatePaymentRequest = z.infer<typeof delegatePaymentRequestSchema>;

export const delegatePaymentResponseSchema = z
  .strictObject({
    id: z.string().describe("The vault token (vt_…): pass it as the payment credential's token when completing the checkout session"),
    created: z.iso.datetime(),
    metadata: z.record(z.string(), z.string()).describe("Your metadata, with merchant_id and idempotency_key added"),
  })
  .describe("ACP DelegatePaymentResponse");
type DelegatePaymentResponse = z.infer<typeof delegatePaymentResponseSchema>;

/** What the vault keeps of a card (DelegatedPayment.card): enough to show and to play the test outcome, never the number. */
export interface StoredCard {
  brand: string;
  last4: string;
  exp_month: string | null;
  exp_year: string | null;
  funding: string;
  /** The test card's outcome at complete. */
  outcome: "succeeds" | "declined";
  decline_reason?: string;
}

const invalidCard = (field: string, detail: string) =>
  new AppError("invalid_card", 422, detail, { errors: [{ in: "body", name: `payment_method.${field}`, message: detail }] });
const invalidAllowance = (field: string, code: string, status: number, detail: string) =>
  new AppError(code, status, detail, { errors: [{ in: "body", name: `allowance.${field}`, message: detail }] });

/** The card's semantic checks (the schema checked its shape): a documented test number, a sane and unexpired expiry. */
function checkCard(card: DelegatePaymentRequest["payment_method"], now: Date): StoredCard {
  const number = card.number.replace(/[ -]/g, "");
  if (!/^\d+$/.test(number) || !luhnValid(number)) throw invalidCard("number", "The card number is not a valid card number (Luhn check).");
  const test = TEST_CARDS[number];
  if (!test) {
    throw invalidCard(
      "number",
      "This is the test-mode vault: only the documented test card numbers are accepted (e.g. 4242424242424242 pays, 4000000000000002 is declined).",
    );
  }
  const last4 = number.slice(-4);
  if (card.display_last4 !== undefined && card.display_last4 !== last4)
    throw invalidCard("display_last4", "display_last4 is not the number's last four digits.");
  if (card.iin !== undefined && !number.startsWith(card.iin)) throw invalidCard("iin", "iin is not the start of the card number.");
  if (card.cvc !== undefined && !/^\d{3,4}$/.test(card.cvc)) throw invalidCard("cvc", "The CVC must be 3 or 4 digits.");
  if ((card.exp_month === undefined) !== (card.exp_year === undefined)) {
    throw invalidCard(card.exp_month === undefined ? "exp_month" : "exp_year", "Give both exp_month and exp_year, or neither.");
  }
  if (card.exp_month !== undefined && card.exp_year !== undefined) {
    if (!/^(0?[1-9]|1[0-2])$/.test(card.exp_month)) throw invalidCard("exp_month", "Invalid card expiration month (01–12).");
    if (!/^\d{4}$/.test(card.exp_year)) throw invalidCard("exp_year", "Invalid card expiration year (four digits).");
    // Valid through the last day of the expiry month.
    const end = Date.UTC(Number(card.exp_year), Number(card.exp_month), 1);
    if (end <= now.getTime()) throw invalidCard("exp_year", "The card has expired.");
  }
  return {
    brand: test.brand,
    last4,
    exp_month: card.exp_month?.padStart(2, "0") ?? null,
    exp_year: card.exp_year ?? null,
    funding: card.display_card_funding_type,
    outcome: test.outcome,
    ...(test.declineReason ? { decline_reason: test.declineReason } : {}),
  };
}

/** The session the allowance names must be the caller's own, still open, in the allowance's currency. */
async function checkAllowance(allowance: DelegatePaymentRequest["allowance"], platformId: string | null, now: Date): Promise<Date> {
  const expiresAt = new Date(allowance.expires_at);
  if (expiresAt.getTime() <= now.getTime())
    throw invalidAllowance("expires_at", "invalid_allowance", 422, "allowance.expires_at must be in the future.");
  if (expiresAt.getTime() - now.getTime() > MAX_ALLOWANCE_MS) {
    throw invalidAllowance("expires_at", "invalid_allowance", 422, "allowance.expires_at may be at most 24 hours ahead.");
  }
  const session = await getDb().acpCheckoutSession.findUnique({
    where: { id: allowance.checkout_session_id },
    select: { platformId: true, status: true, currency: true, expiresAt: true },
  });
  // Another caller's session is indistinguishable from none.
  if (!session || session.platformId !== platformId) {
    throw invalidAllowance("checkout_session_id", "checkout_session_not_found", 404, "No checkout session of yours has that id.");
  }
  if (session.status === "completed" || session.status === "canceled" || session.expiresAt.getTime() <= now.getTime()) {
    throw invalidAllowance(
      "checkout_session_id",
      "checkout_session_not_open",
      409,
      `The checkout session is ${session.status === "completed" || session.status === "canceled" ? session.status : "expired"}; a token can only be made for an open one.`,
    );
  }
  if (session.currency.toLowerCase() !== allowance.currency) {
    throw invalidAllowance(
      "currency",
      "invalid_allowance",
      422,
      `allowance.currency must be the checkout session's currency (${session.currency.toLowerCase()}).`,
    );
  }
  return expiresAt;
}

/**
 * Vaults a test card for one checkout session (see the module comment). Refused unless this deployment's payment
 * provider is the built-in test mode: with Stripe, agents pay with a Stripe Shared Payment Token instead.
 */
export async function delegatePayment(
  req: DelegatePaymentRequest,
  caller: { platformId: string | null; idempotencyKey: string | undefined },
  now = new Date(),
): Promise<DelegatePaymentResponse> {
  const mode = paymentMode();
  if (mode.provider === "stripe") {
    throw new AppError(
      "test_vault_unavailable",
      400,
      "This deployment takes real payments with Stripe, so the test vault is off: complete the checkout session with a Stripe Shared Payment Token (spt_…) as the payment credential (handler psp stripe) instead.",
    );
  }
  if (mode.provider === null) {
    throw new AppError("checkout_not_configured", 503, "Checkout is not configured on this deployment: no payment provider is set up.");
  }
  const card = checkCard(req.payment_method, now);
  if (req.risk_signals.some((s) => s.action === "blocked")) {
    throw new AppError("payment_blocked", 422, "A risk signal says to block this payment method; it was not vaulted.", {
      errors: [{ in: "body", name: "risk_signals", message: "an action is blocked" }],
    });
  }
  const expiresAt = await checkAllowance(req.allowance, caller.platformId, now);
  const id = newVaultToken();
  const metadata: Record<string, string> = {
    ...req.metadata,
    merchant_id: req.allowance.merchant_id,
    ...(caller.idempotencyKey !== undefined ? { idempotency_key: caller.idempotencyKey } : {}),
  };
  await getDb().delegatedPayment.create({
    data: {
      id,
      platformId: caller.platformId,
      checkoutSessionId: req.allowance.checkout_session_id,
      maxAmountCents: req.allowance.max_amount,
      currency: req.allowance.currency,
      expiresAt,
      card: { ...card },
      metadata: {
        ...metadata,
        ...(req.billing_address ? { billing_country: req.billing_address.country, billing_postal_code: req.billing_address.postal_code } : {}),
      },
      createdAt: now,
    },
  });
  return { id, created: now.toISOString(), metadata };
}
