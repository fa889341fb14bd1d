import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { acpSchemaErrors } from "./acp-protocol.ts";

export { delegateBody } from "./acp-protocol.ts";

/** Asserts that a response body is valid against one of the official schemas' definitions (acp-protocol.ts). */
export function expectAcpValid(body: unknown, def: string, bundle: "checkout" | "delegate" = "checkout"): void {
  const errors = acpSchemaErrors(body, `${bundle}#/$defs/${def}`);
  expect(errors, `${def}: ${errors}\n${JSON.stringify(body).slice(0, 2000)}`).toBeNull();
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

/** complete's payment_data for a vault token (test mode). */
export const testPaymentData = (token: string) => ({
  handler_id: "test_card",
  instrument: { type: "card", credential: { type: "vt", token } },
});
