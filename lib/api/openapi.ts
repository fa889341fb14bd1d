import { RESOURCE_METADATA_PATH, SCOPE_DESCRIPTIONS, SELLER_SCOPES, TOKEN_HELP } from "../seller-api/tokens.ts";
import { z } from "zod";
import { ACP_API_VERSION } from "../acp/version.ts";
import { ACP_ORDER_EVENT_TYPES } from "../acp/order-events.ts";
import { sellerEventBodySchema, sellerWebhookCatalogue } from "../seller-webhooks/event-schemas.ts";
import { env } from "../env.ts";
import { SERVICE_NAME, VERSIONS } from "../versions.ts";
import { absoluteUrl, paths } from "../urls.ts";
import type { Operation, Tag } from "../operations/define.ts";
import { bodyCapOf, idempotencyOf } from "../operations/guarantees.ts";
import { operations } from "../operations/index.ts";
import { SESSION_COOKIE } from "../auth/sign-in.ts";

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Json {
  const out = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }) as Json;
  delete out.$schema;
  return out;
}

const TAGS: Record<Tag, string> = {
  Marketplace: "Browse the products listed on the marketplace.",
  Licensing: "Activate, validate and release machine-bound license keys; the calls a licensed app makes.",
  Receipts: "Portable signed receipts and the service's identity.",
  Checkout: "Buy a license: hosted checkout sessions and their outcome.",
  Agents: "Documents for AI agents: the catalog, the discovery payload and the tool manifest.",
  Service: "Health and terms.",
  Seller:
    "The seller API (/api/v1): a seller's own products and the rest of this API's seller operations, with a seller API token (Authorization: Bearer ilmsk_…, created in the dashboard with scopes) or the dashboard's session cookie. Another seller's data answers 404.",
  Licenses: "A seller's licenses: search, complimentary licenses, revoke and reinstate, release machines, and each license's event log.",
  Webhooks:
    "A seller's webhook endpoints (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature), their deliveries, redelivery and test events.",
  "Sign-in": "Signing in to the dashboard and My licenses by e-mailed link, and signing out (the pages' forms only).",
  "API tokens": "A seller's API tokens: created, listed and revoked with the dashboard's session only.",
  Payouts: "A seller's payout account: where the money from their sales goes (Stripe Connect, or the test payout account).",
  Coupons: "A seller's discount codes.",
  "Checkout links":
    "A seller's named links that each sell one product with preset seats, coupon and billing interval, optionally expiring and limited in uses, with their visits, checkouts and sales; anyone reads a link's offer and opens its checkout.",
  Orders: "A seller's orders and their refunds.",
  Admin: "The operator's console: sellers, listings, orders, refunds and payment events (ADMIN_EMAILS only).",
  "Agentic Commerce":
    "The Agentic Commerce Protocol (2026-04-17) as the seller of digital goods: checkout sessions an agent creates, pays with a delegated payment token and completes, receiving the license key. Errors are ACP `Error` objects; every call sends `API-Version`; every POST sends `Idempotency-Key`.",
  Releases:
    "Versions of a product with their per-platform artifacts (size, SHA-256, Ed25519 signature): sellers publish, edit and yank them; anyone lists the published ones.",
  Subscriptions:
    "Recurring sales: a subscription bills each month or year and its license follows it (renewed, past due, canceled, ended). Sellers list and cancel their products' subscriptions; buyers manage theirs on My licenses; in test mode the operator moves a subscription's clock.",
  Reviews:
    "Verified-purchase reviews: anyone reads a product's visible reviews; the holder of a bought, valid license writes or edits one (one per license); the seller replies once; the operator hides and unhides them.",
  "Buy button":
    "The sites of a seller's own that may show the buy button's checkout overlay: each origin is added, proven by a token the seller publishes at /.well-known/indie-license-market.txt, and only then named in the checkout pages' frame-ancestors.",
  "Device authorization":
    "Buying and activating from inside an app with no key to copy, in the manner of OAuth's device grant (RFC 8628): the app asks for a user code and polls with its device code; the buyer, in a browser, buys or picks a license they hold, and the app receives the license already activated on its machine.",
  Upgrades:
    "Upgrades and cross-grades: a seller offers buyers of one product (or edition) another at a set price per seat or for the difference, retiring the old license or letting them keep it; the buyer proves the license by its key or signed in, prices the upgrade and buys it through the same checkout as any sale.",
  Updates:
    "For licensed apps: the newest release a license is entitled to, license-gated downloads through short-lived signed URLs, and the feeds electron-updater, Sparkle and Tauri read.",
};

const problem = (description: string, format: "problem" | "acp" = "problem") =>
  format === "acp"
    ? { description, content: { "application/json": { schema: { $ref: "#/components/schemas/AcpError" } } } }
    : { description, content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } } };
const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input; `errors` names each offending field or parameter",
  401: "Not signed in, or the Bearer token is malformed, unknown, revoked or expired (`invalid_token`, `token_revoked`, `token_expired`)",
  403: "Signed in, but not allowed (no developer profile yet, a cross-site request, a token without the needed scope: `insufficient_scope`, `session_required`)",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict with the resource's state",
  415: "Body is not JSON",
  429: "Rate limited; retry after the `Retry-After` seconds",
  500: "Unexpected error (logged; no details are exposed)",
  502: "The payment provider did not answer",
  503: "Database temporarily unavailable; retry shortly",
};

/** The seller API's refusals of a caller, in the words a token client needs. */
const SELLER_ERROR_TEXT: Record<number, string> = {
  401: `No credentials, or the Bearer token is malformed, unknown, revoked or expired (\`unauthorized\`, \`invalid_token\`, \`token_revoked\`, \`token_expired\`): ${TOKEN_HELP}. \`WWW-Authenticate\` names the resource metadata (${RESOURCE_METADATA_PATH}).`,
  403: "Authenticated, but not allowed: a token without the needed scope (`insufficient_scope`, the scope named in `WWW-Authenticate`), an operation for the dashboard's session only (`session_required`), no developer profile yet, a cross-site request",
};
const AGENT_ERROR_TEXT: Record<number, string> = {
  401: "The agent platform key (`Authorization: Bearer acpk_…`, issued by the operator) is missing, malformed, unknown or revoked (`unauthorized`)",
};

const IDEMPOTENCY_ERROR_TEXT: Record<number, string> = {
  409: "`idempotency_in_flight`: a request with this Idempotency-Key is still running (retry after `Retry-After`), or a conflict with the resource's state",
  422: "`idempotency_conflict`: this Idempotency-Key was used with a different request",
};

function parameters(op: Operation): Json[] {
  const out: Json[] = [];
  // The ACP endpoints (errorFormat "acp") each check the version first (lib/acp/version.ts).
  if (op.http?.errorFormat === "acp") out.push({ $ref: "#/components/parameters/ApiVersion" });
  // Wherever execute() honours a key (lib/operations/guarantees.ts: declared, or every POST that writes).
  const idempotency = idempotencyOf(op);
  if (idempotency)
    out.push({
      name: "Idempotency-Key",
      in: "header",
      required: idempotency === "required",
      description:
        "A fresh key (UUID v4) per new request, the same one when retrying: a retry with the same body gets the first answer (with `Idempotent-Replayed: true`) for 24 h.",
      schema: { type: "string", minLength: 1, maxLength: 255 },
    });
  for (const [where, schema] of [
    ["query", op.input?.query],
    ["path", op.input?.params],
  ] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema, "input");
    const required = new Set((js.required as string[] | undefined) ?? []);
    for (const [name, prop] of Object.entries((js.properties ?? {}) as Record<string, Json>)) {
      const { description, ...rest } = prop;
      out.push({ name, in: where, required: where === "path" || required.has(name), ...(description ? { description } : {}), schema: rest });
    }
  }
  return out;
}

function operationObject(op: Operation): Json {
  const body = op.input?.body;
  const errorCodes = new Set([...(op.errors ?? []), 500, 503]);
  if (op.input?.query || op.input?.params || body) errorCodes.add(400);
  if (body) {
    errorCodes.add(413);
    errorCodes.add(415);
  }
  // Every operation is rate limited: its own rules or the default per caller (lib/operations/guarantees.ts).
  errorCodes.add(429);
  if (op.http?.errorFormat === "acp") errorCodes.add(400);
  const idempotent = idempotencyOf(op) !== undefined;
  if (idempotent) {
    errorCodes.add(400);
    errorCodes.add(409);
    errorCodes.add(422);
  }
  if (op.auth === "agent") errorCodes.add(401);
  if (op.auth === "seller") {
    errorCodes.add(401);
    errorCodes.add(403);
    errorCodes.add(429);
  }
  const responses: Json = op.http?.redirect
    ? { "302": { description: "Redirect to a short-lived signed URL", headers: { Location: { schema: { type: "string", format: "uri" } } } } }
    : {
        [String(op.http?.status ?? 200)]: {
          description: "Success",
          headers: { Link: { $ref: "#/components/headers/Link" } },
          content: { [(op.http?.contentType ?? "application/json").replace(/;.*$/s, "")]: { schema: jsonSchema(op.output, "output") } },
        },
      };
  const cap = bodyCapOf(op);
  for (const code of [...errorCodes].sort()) {
    const answer: Json = problem(
      (code === 413 ? `Request body larger than this operation's limit of ${cap} bytes` : undefined) ??
        (idempotent ? IDEMPOTENCY_ERROR_TEXT[code] : undefined) ??
        (op.auth === "seller" ? SELLER_ERROR_TEXT[code] : undefined) ??
        (op.auth === "agent" ? AGENT_ERROR_TEXT[code] : undefined) ??
        ERROR_TEXT[code] ??
        "Error",
      op.http?.errorFormat ?? "problem",
    );
    // Every 401 (and a token's 403) of the seller API carries its challenge, naming the resource metadata.
    if (op.auth === "seller" && (code === 401 || code === 403))
      answer.headers = {
        "WWW-Authenticate": { $ref: code === 401 ? "#/components/headers/SellerChallenge" : "#/components/headers/SellerScopeChallenge" },
      };
    if (op.auth === "agent" && code === 401) answer.headers = { "WWW-Authenticate": { $ref: "#/components/headers/AgentChallenge" } };
    responses[String(code)] = answer;
  }
  const tools = (op.tools ?? []).map((t) => `\`${t.name}\``);
  const params = parameters(op);
  return {
    operationId: op.id,
    summary: op.summary,
    description:
      [op.description, tools.length ? `Also available as the MCP tool${tools.length > 1 ? "s" : ""} ${tools.join(" and ")}.` : ""]
        .filter(Boolean)
        .join(" ") || op.summary,
    tags: [op.tag],
    // The operator signs in with the same links (a seller session of an ADMIN_EMAILS address). A seller API token
    // lists the scope it needs (OpenAPI 3.1 allows role names for non-OAuth schemes); reads also pass with "read".
    ...(op.auth === "admin" || (op.auth === "seller" && op.sellerScope === "session") ? { security: [{ sellerSession: [] }] } : {}),
    ...(op.auth === "seller" && op.sellerScope !== "session"
      ? {
          security: [
            {
              sellerToken:
                op.http?.method === "GET" ? ["read", op.sellerScope ?? "read"].filter((v, i, a) => a.indexOf(v) === i) : [op.sellerScope ?? "read"],
            },
            { sellerSession: [] },
          ],
        }
      : {}),
    // Anonymous agents may call when the operator allows it (ACP_ANONYMOUS), hence the empty alternative.
    ...(op.auth === "agent" ? { security: [{ agentPlatformKey: [] }, {}] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(op.http?.bodyStream
      ? {
          requestBody: {
            required: true,
            content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
          },
        }
      : body
        ? {
            requestBody: {
              required: true,
              description: `At most ${cap} bytes.`,
              "x-max-body-bytes": cap,
              content: { "application/json": { schema: jsonSchema(body, "input") } },
            },
          }
        : {}),
    responses,
  };
}

const webhookId = (type: string) => type.replace(/[^A-Za-z0-9]+(.)/g, (_m, c: string) => c.toUpperCase());

/**
 * What this service POSTs to others (OpenAPI 3.1 `webhooks`): every seller event of the catalogue
 * (lib/seller-webhooks/events.ts, data described in event-schemas.ts), signed as Standard Webhooks, and the ACP
 * order events an agent platform receives, signed with Merchant-Signature (lib/acp/order-events.ts).
 */
function webhooks(): Json {
  const out: Json = {};
  const acknowledged = {
    "200": {
      description:
        "Any 2xx acknowledges the event. Anything else, a redirect, or no answer within 10 s is a failed attempt, retried with backoff: 8 attempts over about 20 hours.",
    },
  };
  for (const { type, summary } of sellerWebhookCatalogue())
    out[type] = {
      post: {
        operationId: `sellerWebhook${webhookId(`-${type}`)}`,
        summary,
        description: `Sent to each of the seller's enabled webhook endpoints that subscribes to \`${type}\` (an endpoint with an empty event list receives every type). Signed as Standard Webhooks: verify \`webhook-signature\` over \`<webhook-id>.<webhook-timestamp>.<raw body>\` with the endpoint's secret (any Standard Webhooks library does), and deduplicate by \`webhook-id\`, the same on every retry and redelivery.`,
        tags: ["Webhooks"],
        security: [],
        parameters: [
          { $ref: "#/components/parameters/WebhookIdHeader" },
          { $ref: "#/components/parameters/WebhookTimestampHeader" },
          { $ref: "#/components/parameters/WebhookSignatureHeader" },
        ],
        requestBody: { required: true, content: { "application/json": { schema: jsonSchema(sellerEventBodySchema(type), "output") } } },
        responses: acknowledged,
      },
    };
  for (const type of ACP_ORDER_EVENT_TYPES)
    out[type] = {
      post: {
        operationId: `acpWebhook${webhookId(`-${type}`)}`,
        summary: type === "order_create" ? "An agent's ACP order was created" : "An agent's ACP order changed (refund, dispute)",
        description: `The Agentic Commerce Protocol's order webhook (openapi.agentic_checkout_webhook.yaml, ${ACP_API_VERSION}), POSTed to the agent platform's webhook URL (set by the operator, or by the platform itself: PUT /api/acp/platform/webhook). Verify \`Merchant-Signature\` (\`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the platform's webhook secret>\`) and deduplicate by \`Request-Id\`, the same on every retry.`,
        tags: ["Agentic Commerce"],
        security: [],
        parameters: [
          { $ref: "#/components/parameters/MerchantSignatureHeader" },
          { name: "Request-Id", in: "header", required: true, description: "The delivery's id, the same on every retry", schema: { type: "string" } },
          {
            name: "Timestamp",
            in: "header",
            required: true,
            description: "When this attempt was sent (RFC 3339)",
            schema: { type: "string", format: "date-time" },
          },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                description: "ACP's WebhookEvent: the full Order as it stands now, not a delta.",
                required: ["type", "data"],
                additionalProperties: false,
                properties: {
                  type: { type: "string", const: type },
                  data: {
                    type: "object",
                    description:
                      "ACP's Order (openapi.agentic_checkout.yaml): one line item, one digital fulfilment carrying the license, refunds and disputes as adjustments.",
                    required: ["type", "id", "checkout_session_id", "permalink_url", "status"],
                    properties: {
                      type: { type: "string", const: "order" },
                      id: { type: "string" },
                      checkout_session_id: { type: "string" },
                      order_number: { type: "string" },
                      permalink_url: { type: "string", format: "uri" },
                      status: { type: "string", enum: ["created", "completed", "canceled"] },
                    },
                  },
                },
              },
            },
          },
        },
        responses: acknowledged,
      },
    };
  return out;
}

/** The OpenAPI 3.1 description, generated from the operation registry and its zod schemas. */
export function openApiDocument(): Json {
  const docPaths: Record<string, Json> = {};
  const usedTags = new Set<string>(["Webhooks", "Agentic Commerce"]);
  for (const op of operations())
    if (op.http) {
      (docPaths[op.http.path] ??= {})[op.http.method.toLowerCase()] = operationObject(op);
      usedTags.add(op.tag);
    }
  return {
    openapi: "3.1.0",
    info: {
      title: `${SERVICE_NAME} API`,
      version: VERSIONS.api,
      summary: "Machine-bound license keys, a software marketplace and agent checkout.",
      description:
        "Every public endpoint is open: no API key. A seller's own endpoints (/api/v1) take a seller API token (`Authorization: Bearer ilmsk_…`, created in the dashboard) or the dashboard's session cookie; the Agentic Commerce endpoints (/api/acp) an agent platform's key (`Authorization: Bearer acpk_…`). What this service POSTs to others (seller webhooks, ACP order events) is under `webhooks`. License keys, fingerprints and product ids are request data, not credentials. Errors are RFC 9457 problem documents with a stable `code`. Every response carries a `Link` header naming the MCP endpoint.",
      contact: { name: SERVICE_NAME, url: env().BASE_URL },
      license: { name: "MIT", identifier: "MIT" },
    },
    servers: [{ url: env().BASE_URL, description: "This deployment" }],
    security: [],
    // The tags of the operations this document lists (the pages' own operations, such as sign-in, have no HTTP route).
    tags: Object.entries(TAGS)
      .filter(([name]) => usedTags.has(name))
      .map(([name, description]) => ({ name, description })),
    externalDocs: { description: "Agent guide (llms.txt)", url: absoluteUrl("/llms.txt") },
    paths: docPaths,
    webhooks: webhooks(),
    components: {
      schemas: {
        Problem: {
          type: "object",
          description: "RFC 9457 problem document",
          required: ["type", "title", "status", "detail", "code"],
          properties: {
            type: { type: "string" },
            title: { type: "string" },
            status: { type: "integer" },
            detail: { type: "string" },
            code: { type: "string", description: "Stable machine-readable error code" },
            instance: { type: "string" },
            request_id: { type: "string" },
            errors: {
              type: "array",
              items: {
                type: "object",
                required: ["in", "name", "message"],
                properties: { in: { type: "string" }, name: { type: "string" }, message: { type: "string" } },
              },
            },
          },
        },
        AcpError: {
          type: "object",
          description: "The Agentic Commerce Protocol's Error object",
          additionalProperties: false,
          required: ["type", "code", "message"],
          properties: {
            type: { type: "string", enum: ["invalid_request", "processing_error", "service_unavailable"] },
            code: { type: "string" },
            message: { type: "string" },
            param: { type: "string", description: "RFC 9535 JSONPath of the offending field" },
          },
        },
      },
      securitySchemes: {
        agentPlatformKey: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "acpk_…",
          description: "An agent platform's key for the Agentic Commerce Protocol endpoints, issued by the operator in /admin",
        },
        sellerToken: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "ilmsk_…",
          description: `A seller API token, created in the dashboard (API tokens) with scopes: ${SELLER_SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join(", ")}. A GET needs \`read\` or its area's scope; a write needs its area's scope.`,
        },
        sellerSession: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE.seller,
          description: "The seller dashboard's session, from an e-mailed sign-in link",
        },
      },
      headers: {
        Link: { description: `Links to the MCP endpoint (rel="mcp"), this description and the discovery payload`, schema: { type: "string" } },
        SellerChallenge: {
          description: `RFC 6750's challenge, on every 401 of the seller API (no credentials too): \`Bearer realm="seller"\`, \`error="invalid_token"\` when a token was sent, and \`resource_metadata\` naming the RFC 9728 document (${RESOURCE_METADATA_PATH}) that says how to get and send a token.`,
          required: true,
          schema: { type: "string", pattern: '^Bearer .*resource_metadata="[^"]+"' },
        },
        SellerScopeChallenge: {
          description:
            'On a 403 `insufficient_scope`: `Bearer realm="seller", error="insufficient_scope", scope="<the scope needed>", resource_metadata="…"`.',
          schema: { type: "string" },
        },
        AgentChallenge: { description: 'On a 401 of the ACP endpoints: `Bearer realm="acp"`.', required: true, schema: { type: "string" } },
      },
      parameters: {
        ApiVersion: {
          name: "API-Version",
          in: "header",
          required: true,
          description: `The Agentic Commerce Protocol version the client speaks; any other is 400 \`unsupported_api_version\`, none is 400 \`api_version_required\`.`,
          schema: { type: "string", enum: [ACP_API_VERSION] },
        },
        WebhookIdHeader: {
          name: "webhook-id",
          in: "header",
          required: true,
          description: "The message id (msg_…): the same on every retry and redelivery of this event to this endpoint",
          schema: { type: "string" },
        },
        WebhookTimestampHeader: {
          name: "webhook-timestamp",
          in: "header",
          required: true,
          description: "Unix seconds when this attempt was signed; refuse ones far from your clock",
          schema: { type: "string", pattern: "^[0-9]+$" },
        },
        WebhookSignatureHeader: {
          name: "webhook-signature",
          in: "header",
          required: true,
          description:
            "`v1,<base64 HMAC-SHA256>` of `<webhook-id>.<webhook-timestamp>.<raw body>` with the endpoint's secret (whsec_…, base64 after the prefix); Standard Webhooks allows several, space-separated",
          schema: { type: "string" },
        },
        MerchantSignatureHeader: {
          name: "Merchant-Signature",
          in: "header",
          required: true,
          description: '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" with the platform\'s webhook secret>`',
          schema: { type: "string", pattern: "^t=[0-9]+,v1=[0-9a-f]{64}$" },
        },
      },
    },
    "x-mcp": { endpoint: absoluteUrl(paths.mcp), transport: "streamable-http", protocol_version: VERSIONS.mcpProtocol },
  };
}
