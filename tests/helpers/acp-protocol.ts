import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/**
 * What the ACP tests share whatever runs them (Vitest, Playwright), so nothing here imports a test framework: the
 * official ACP 2026-04-17 JSON Schemas (vendored in tests/fixtures/acp-2026-04-17, byte-identical to the release:
 * acp-sessions.test.ts checks), compiled once, and the request body that vaults a test card.
 */
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/acp-2026-04-17/${name}`, import.meta.url), "utf8")) as object;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(fixture("schema.agentic_checkout.json"), "checkout");
ajv.addSchema(fixture("schema.delegate_payment.json"), "delegate");

/** Null when `body` is valid against `ref` (e.g. "checkout#/$defs/CheckoutSession"), else the validator's errors as text. */
export function acpSchemaErrors(body: unknown, ref: string): string | null {
  const validate = ajv.getSchema(ref);
  if (!validate) throw new Error(`no schema ${ref}`);
  return validate(body) ? null : JSON.stringify(validate.errors, null, 1);
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
