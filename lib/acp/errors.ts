import type { AppError } from "../http/errors.ts";

/** The Agentic Commerce Protocol's `Error` object (openapi.agentic_checkout.yaml, components.schemas.Error). */
export interface AcpError {
  type: "invalid_request" | "processing_error" | "service_unavailable";
  code: string;
  message: string;
  /** RFC 9535 JSONPath of the offending request field, when one is to blame. */
  param?: string;
}

/** A dotted field path ("items.0.id") as the JSONPath ACP's `param` takes ("$.items[0].id"). */
function jsonPath(name: string): string {
  if (!name || name === "(root)") return "$";
  return `$${name
    .split(".")
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? `.${part}` : `['${part.replace(/'/g, "\\'")}']`))
    .join("")}`;
}

/**
 * Our AppError as ACP's Error: 5xx are processing errors (503: unavailable), everything a caller can fix is
 * invalid_request. A malformed card in a delegate_payment request is `invalid_card`, the code the delegate payment
 * spec names for it, rather than our generic `invalid_body`.
 */
export function acpError(error: AppError): AcpError {
  const type = error.status === 503 ? "service_unavailable" : error.status >= 500 ? "processing_error" : "invalid_request";
  const field = error.extra.errors?.find((e) => e.in === "body" || e.in === "path");
  const param = field ? (field.in === "path" ? `$.${field.name}` : jsonPath(field.name)) : undefined;
  const card = error.code === "invalid_body" && param !== undefined && /^\$(\.payload)?\.payment_method\b/.test(param);
  return {
    type,
    code: card ? "invalid_card" : error.code,
    message: error.detail,
    ...(param !== undefined ? { param } : {}),
  };
}
