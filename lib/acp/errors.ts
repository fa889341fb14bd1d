import type { AppError } from "../http/errors.ts";
import { ACP_API_VERSION } from "./version.ts";

/**
 * The Agentic Commerce Protocol's `Error` object: schema.agentic_checkout.json and schema.delegate_payment.json,
 * `$defs.Error` (both `additionalProperties: false`). The checkout API's `code` is implementation-defined; the delegate
 * payment API's is a closed enum (DELEGATE_PAYMENT_CODES), and its `type` also has `rate_limit_exceeded`.
 */
export interface AcpError {
  type: "invalid_request" | "rate_limit_exceeded" | "processing_error" | "service_unavailable";
  code: string;
  message: string;
  /** RFC 9535 JSONPath of the offending request field, when one is to blame. */
  param?: string;
  /** On version errors: the versions we speak, newest first (both schemas define it for these errors). */
  supported_versions?: string[];
}

/** The delegate payment API's `Error.code` enum (schema.delegate_payment.json), in full. */
const DELEGATE_PAYMENT_CODES = new Set([
  "invalid_card",
  "duplicate_request",
  "idempotency_conflict",
  "too_many_requests",
  "idempotency_key_required",
  "idempotency_in_flight",
]);

/** A dotted field path ("items.0.id") as the JSONPath ACP's `param` takes ("$.items[0].id"). */
function jsonPath(name: string): string {
  if (!name || name === "(root)") return "$";
  return `$${name
    .split(".")
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? `.${part}` : `['${part.replace(/'/g, "\\'")}']`))
    .join("")}`;
}

/**
 * Where the request field to blame lives, as JSONPath. Over REST, relative to the body (a path parameter by its
 * name). Over the ACP MCP binding, relative to the tool's arguments `{meta, id, payload}`: a body field is under
 * `$.payload` and the session id is `$.id`, as the binding's own example names `$.payload.currency`; a field the
 * argument check named (`meta.…`, `payload.…`, `id`, an unknown argument) already is.
 */
function paramOf(error: AppError, binding: Binding): string | undefined {
  const field = error.extra.errors?.find((e) => e.in === "body" || e.in === "path");
  if (!field) return undefined;
  if (binding === "rest") return field.in === "path" ? `$.${field.name}` : jsonPath(field.name);
  if (field.in === "path") return "$.id";
  // A field of the request body, as the operation named it: under the tool's payload. Anything else the argument
  // check named from the arguments' root (meta.api_version, payload.currency, an unknown argument).
  const first = field.name.split(".")[0] ?? "";
  return jsonPath(binding.payloadFields.has(first) ? `payload.${field.name}` : field.name);
}

/** REST, or the ACP MCP binding with the request body's top-level fields (the tool's `payload`). */
export type Binding = "rest" | { payloadFields: ReadonlySet<string> };

/** Whether the operation (by its id) is the delegate payment API, whose Error has a closed `code` enum. */
const isDelegatePayment = (op: { id: string } | undefined) => op?.id === "delegatePayment";

/**
 * Our AppError as ACP's Error. `type`: 5xx are processing errors (503: unavailable), and so is a declined payment
 * (402; the ACP MCP binding's example of payment_declined says processing_error), 429 is `rate_limit_exceeded`
 * where the schema has it (delegate payment; the checkout schema has no such type, so there it is invalid_request
 * with code `rate_limited`), everything else a caller can fix is invalid_request. A malformed card in a
 * delegate_payment request is `invalid_card` rather than our generic `invalid_body`.
 *
 * `code`: for the checkout API our stable code as it is (the schema leaves codes to the implementation). For the
 * delegate payment API, whose schema allows six codes only, ours maps to the closest (README, "Agentic Commerce
 * Protocol"): idempotency codes as they are; 429 → too_many_requests; 5xx → too_many_requests (back off and retry is
 * what the six offer for a failure on our side); every other refusal of the request (a bad field, the allowance, the
 * session, a blocked risk signal, the version, the key) → invalid_card, the enum's one code for a request to fix, with
 * `param` naming the field to blame and our own code kept at the end of the message, e.g.
 * "No checkout session of yours has that id. (checkout_session_not_found)".
 *
 * `binding`: the ACP MCP binding's, when the answer goes out as the JSON-RPC error's `data` of an ACP tool (params
 * relative to the tool's arguments).
 */
export function acpError(error: AppError, op?: { id: string }, binding: Binding = "rest"): AcpError {
  const delegate = isDelegatePayment(op);
  const type =
    error.status === 503
      ? "service_unavailable"
      : error.status >= 500 || error.status === 402
        ? "processing_error"
        : error.status === 429 && delegate
          ? "rate_limit_exceeded"
          : "invalid_request";
  const param = paramOf(error, binding);
  const card = error.code === "invalid_body" && param !== undefined && /^\$(\.payload)?\.payment_method\b/.test(param);
  let code = card ? "invalid_card" : error.code;
  let message = error.detail;
  if (delegate && !DELEGATE_PAYMENT_CODES.has(code)) {
    code = error.status === 429 || error.status >= 500 ? "too_many_requests" : "invalid_card";
    message = `${error.detail} (${error.code})`;
  }
  const version = error.code === "api_version_required" || error.code === "unsupported_api_version";
  return {
    type,
    code,
    message,
    ...(param !== undefined ? { param } : {}),
    ...(version ? { supported_versions: [ACP_API_VERSION] } : {}),
  };
}
