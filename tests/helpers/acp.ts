import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { expect } from "vitest";

/**
 * The official ACP 2026-04-17 JSON Schemas (vendored in tests/fixtures/acp-2026-04-17, byte-identical to the
 * release: acp-sessions.test.ts checks), compiled once, and an assertion that a response body is valid against one
 * of their definitions (e.g. "CheckoutSession", "CheckoutSessionWithOrder", "Error", "DiscoveryResponse").
 */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/acp-2026-04-17/${name}`, import.meta.url), "utf8")) as object;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(fixture("schema.agentic_checkout.json"), "checkout");
ajv.addSchema(fixture("schema.delegate_payment.json"), "delegate");

export function expectAcpValid(body: unknown, def: string, bundle: "checkout" | "delegate" = "checkout"): void {
  const validate = ajv.getSchema(`${bundle}#/$defs/${def}`);
  if (!validate) throw new Error(`no ${def} in the ${bundle} schema`);
  const ok = validate(body);
  expect(ok, `${def}: ${JSON.stringify(validate.errors, null, 1)}\n${JSON.stringify(body).slice(0, 2000)}`).toBe(true);
}

/** The ACP headers a REST call carries: the version, a fresh Idempotency-Key (on POSTs), a platform key when given. */
export function acpHeaders(
  opts: { key?: string | null; version?: string | null; platformKey?: string; requestId?: string } = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (opts.key !== null) headers["idempotency-key"] = opts.key ?? randomUUID();
  if (opts.version !== null) headers["api-version"] = opts.version ?? "2026-04-17";
  if (opts.platformKey) headers.authorization = `Bearer ${opts.platformKey}`;
  if (opts.requestId) headers["request-id"] = opts.requestId;
  return headers;
}

/** A delegate_payment request body for a test card, allowing `maxAmount` of `currency` for one session for an hour. */
export function delegateBody(sessionId: string, maxAmount: number, currency = "usd", number = "4242424242424242") {
  return {
    payment_method: {
      type: "card",
      card_number_type: "fpan",
      virtual: false,
      number,
      exp_month: "11",
      exp_year: String(new Date().getUTCFullYear() + 2),
      name: "Jane Doe",
      cvc: "223",
      checks_performed: ["avs", "cvv"],
      iin: number.slice(0, 6),
      display_card_funding_type: "credit",
      display_brand: "visa",
      display_last4: number.slice(-4),
      metadata: {},
    },
    allowance: {
      reason: "one_time",
      max_amount: maxAmount,
      currency,
      checkout_session_id: sessionId,
      merchant_id: "indie-license-market",
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
    risk_signals: [{ type: "card_testing", score: 0, action: "authorized" }],
    metadata: {},
  };
}

/** complete's payment_data for a vault token (test mode). */
export const testPaymentData = (token: string) => ({
  handler_id: "test_card",
  instrument: { type: "card", credential: { type: "vt", token } },
});
