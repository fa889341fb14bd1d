import { describe, expect, it } from "vitest";
import { acpError } from "@/lib/acp/errors";
import { AppError } from "@/lib/http/errors";
import { acpSchemaErrors } from "../helpers/acp-protocol";

/**
 * Our refusals as ACP's Error object, for every status an ACP endpoint answers, valid against the official schema of
 * each API (tests/fixtures/acp-2026-04-17): the checkout API's free-form codes, and delegate_payment's closed enum
 * (README, "Refusals, by the book"). The integration test (acp-binding.test.ts) checks the same on the wire.
 */
const delegate = { id: "delegatePayment" };
const checkout = { id: "createAcpCheckoutSession" };
const field = (name: string) => ({ errors: [{ in: "body", name, message: "is wrong" }] });

const refusals: AppError[] = [
  new AppError("invalid_body", 400, "Bad body.", field("allowance.max_amount")),
  new AppError("invalid_json", 400, "Not JSON."),
  new AppError("api_version_required", 400, "Send API-Version.", { errors: [{ in: "header", name: "API-Version", message: "is required" }] }),
  new AppError("unsupported_api_version", 400, "Old version.", field("meta.api_version")),
  new AppError("unauthorized", 401, "Who are you?"),
  new AppError("checkout_session_not_found", 404, "No such session.", field("allowance.checkout_session_id")),
  new AppError("checkout_session_not_open", 409, "Closed.", field("allowance.checkout_session_id")),
  new AppError("idempotency_in_flight", 409, "Wait."),
  new AppError("payment_declined", 402, "Declined."),
  new AppError("idempotency_conflict", 422, "Other body."),
  new AppError("rate_limited", 429, "Slow down."),
  new AppError("internal_error", 500, "Oops."),
  new AppError("payment_provider_unavailable", 502, "Provider down."),
  new AppError("checkout_not_configured", 503, "Not set up."),
];

describe("acpError", () => {
  it("answers every refusal of delegate_payment with one of the six codes its schema allows, ours kept in the message", () => {
    for (const e of refusals) {
      const out = acpError(e, delegate);
      expect(acpSchemaErrors(out, "delegate#/$defs/Error"), e.code).toBeNull();
      if (out.code !== e.code) expect(out.message, e.code).toBe(`${e.detail} (${e.code})`);
    }
    expect(acpError(refusals[10]!, delegate)).toMatchObject({ type: "rate_limit_exceeded", code: "too_many_requests" });
    expect(acpError(refusals[13]!, delegate)).toMatchObject({ type: "service_unavailable", code: "too_many_requests" });
    expect(acpError(refusals[5]!, delegate)).toMatchObject({ code: "invalid_card", param: "$.allowance.checkout_session_id" });
    expect(acpError(refusals[9]!, delegate)).toMatchObject({ code: "idempotency_conflict", message: "Other body." });
  });

  it("answers every refusal of a checkout endpoint with our own code, valid against the checkout schema", () => {
    for (const e of refusals) {
      const out = acpError(e, checkout);
      expect(acpSchemaErrors(out, "checkout#/$defs/Error"), e.code).toBeNull();
      expect(out).toMatchObject({ code: e.code, message: e.detail });
    }
    expect(acpError(refusals[8]!, checkout).type).toBe("processing_error");
    expect(acpError(refusals[2]!, checkout).supported_versions).toEqual(["2026-04-17"]);
  });

  it("names the field relative to the MCP tool's arguments under the binding", () => {
    const binding = { payloadFields: new Set(["line_items", "currency"]) };
    expect(acpError(new AppError("invalid_item_id", 400, "x", field("line_items.0.id")), checkout, binding).param).toBe("$.payload.line_items[0].id");
    expect(acpError(new AppError("invalid_body", 400, "x", field("meta.api_version")), checkout, binding).param).toBe("$.meta.api_version");
    expect(acpError(new AppError("invalid_body", 400, "x", field("surprise")), checkout, binding).param).toBe("$.surprise");
    const path = { errors: [{ in: "path", name: "checkout_session_id", message: "x" }] };
    expect(acpError(new AppError("checkout_session_not_found", 404, "x", path), checkout, binding).param).toBe("$.id");
    expect(acpError(new AppError("checkout_session_not_found", 404, "x", path), checkout).param).toBe("$.checkout_session_id");
  });
});
