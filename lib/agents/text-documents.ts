import { z } from "zod";
import { operations } from "../operations/index.ts";
import { LICENSE_CODES } from "../licensing/codes.ts";
import { CATEGORIES, CATEGORY_LABELS } from "../marketplace/constants.ts";
import { catalogProductSchema } from "../marketplace/schemas.ts";
import { FEE_TERMS, formatPrice, PRICING, SUPPORTED_CURRENCIES } from "../pricing.ts";
import { SERVICE_NAME, VERSIONS } from "../versions.ts";
import { ACP_API_VERSION } from "../acp/version.ts";
import { env } from "../env.ts";
import { paymentMode } from "../payments/provider.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { RESOURCE_METADATA_PATH } from "../seller-api/tokens.ts";
import { discoveryLinks, mcpConfigSnippet, SUMMARY, TAGLINE } from "./documents.ts";
import { A2A_PATH, A2A_ROUTING } from "./a2a/paths.ts";
import { LAYERS, tools, toolParameters } from "./tools.ts";

/** /llms.txt: an H1, a blockquote summary, then sections of links (the llms.txt format). */
export function llmsTxt(): string {
  const l = discoveryLinks();
  return `# ${SERVICE_NAME}

> ${TAGLINE} ${SUMMARY}

No API key is needed${env().ACP_ANONYMOUS === "on" ? "" : " except for the Agentic Commerce Protocol (an agent platform key from the operator)"}. Amounts are integer minor units (cents) of each product's currency. License keys look like XXXX-XXXX-XXXX-XXXX (four groups of four letters or digits); machine fingerprints are SHA-256 hex digests (64 hex characters) of the CPU brand plus an OS identifier.

## Start here

- [Discovery payload](${l.self}): every protocol, capability layer and link in one JSON document
- [MCP endpoint](${l.mcp}): ${tools().length} tools over streamable HTTP (protocol ${VERSIONS.mcpProtocol} and newer); the list is fixed (listChanged: false); a refused call is an isError result whose structuredContent is {code, detail, errors} naming each bad or unknown argument (the ACP tools, as the ACP MCP binding has it: a JSON-RPC error -32000 whose data is ACP's Error object); a seller's API token (Authorization: Bearer ilmsk_…, [how to authenticate](${absoluteUrl(RESOURCE_METADATA_PATH)})) adds that seller's own tools
- [A2A endpoint](${absoluteUrl(A2A_PATH)}): the same tools as A2A skills over JSON-RPC (A2A 1.0, and 0.3's message/send), found from the agent card
- [Tool manifest](${l.tools}): the same tools in OpenAI function format, strict mode (every argument listed; optional ones nullable, null meaning not given)
- [OpenAPI description](${l.openapi}): every REST endpoint with request and response schemas
- [Full reference](${l.llms_full}): tools, endpoints, codes and pricing in one text file

## Buy a license by yourself (shortest path)

Agentic Commerce Protocol ${ACP_API_VERSION}, seller of digital goods: [discovery](${absoluteUrl("/.well-known/acp.json")}). ${
    paymentMode().provider === "test"
      ? "Test mode: pay with a delegated test card token (4242424242424242 pays, 4000000000000002 is declined); no money moves."
      : paymentMode().provider === "stripe"
        ? "Pay with a Stripe Shared Payment Token (spt_…) through the stripe_spt payment handler at complete."
        : "Checkout is not configured on this deployment yet: sessions can be priced, not paid."
  }

- Over MCP only: browse_marketplace (page, next_page) → get_product_details → create_checkout_session {meta: {api_version: "${ACP_API_VERSION}", idempotency_key?}, payload: {line_items: [{id: product_id}], currency, buyer: {email}, capabilities: {interventions: {supported: []}}}} → delegate_payment {meta, payload: {payment_method, allowance: {reason: "one_time", max_amount, currency, checkout_session_id, merchant_id, expires_at}, risk_signals}} → complete_checkout_session {meta, id, payload: {payment_data: {handler_id, instrument: {type: "card", credential: {type, token}}}}} (handler_id from the session's capabilities.payment.handlers: test_card with the vt_ token, or stripe_spt with a Shared Payment Token): order.fulfillments[0] carries the license key and how to activate it → activate_license → validate_license → get_receipt → verify_receipt → deactivate_license
- Over REST: the same with POST ${absoluteUrl("/api/acp/checkout_sessions")}, POST …/{id} (update), POST ${absoluteUrl("/api/acp/agentic_commerce/delegate_payment")}, POST …/{id}/complete (GET …/{id}, POST …/{id}/cancel); header API-Version: ${ACP_API_VERSION} on every call and Idempotency-Key on every POST (a retry with the same key and body returns the first answer; another body is 422 idempotency_conflict); errors are ACP Error objects {type, code, message, param}. Then POST /activate, /validate, GET /api/receipt?key=, POST /api/receipt, POST /deactivate.

## Marketplace

- [Catalog](${l.catalog}): products with capability metadata, 20 a page, filter by category, search and sort
- [Listings](${l.marketplace}): browse with category, search, sort, page and limit
- [Categories](${l.categories}): ${CATEGORIES.join(", ")} with counts
- [Create a checkout](${l.checkout}): for a purchase a person pays: POST product_id, buyer_email and agent_id; the buyer opens the returned url and pays; GET ${absoluteUrl("/api/checkout/")}{session_id} (MCP: get_checkout_status) then returns the key. An agent paying by itself uses the Agentic Commerce Protocol instead (MCP: create_checkout_session, delegate_payment, complete_checkout_session)

## Licensing

- [Validate](${absoluteUrl("/validate")}): POST license_key, machine_fingerprint, plugin_id
- [Activate](${absoluteUrl("/activate")}): POST the same to bind a machine
- [Deactivate](${absoluteUrl("/deactivate")}): POST license_key and machine_fingerprint to free a seat
- [Receipts](${l.receipt}): GET ?key= for a signed receipt, POST it back to verify

## Identity and terms

- [Terms](${l.terms}): ${PRICING.transaction_fee_percent}% per sale, no monthly fee, free SDK and self-hosting
- [DID document](${l.did}): did:web identity with an Ed25519 key
- [A2A agent card](${l.agent_card}): one skill per tool; points A2A clients at the A2A endpoint
- [MCP server card](${l.mcp_card})
- [agents.json](${l.agents})
- [OpenAI plugin manifest](${l.ai_plugin})

## Optional

- [For AI agents](${absoluteUrl("/agents")}): the same, for people
- [Storefront](${absoluteUrl("/")})
`;
}

/** A JSON-schema keyword's value as text: strings as they are, numbers and booleans printed, arrays comma-joined. */
function schemaText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return value.map(schemaText).join(",");
  return JSON.stringify(value);
}

function schemaLines(schema: Record<string, unknown>): string[] {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const entries = Object.entries(props);
  if (!entries.length) return ["  (no arguments)"];
  return entries.map(([name, p]) => {
    const type = p.enum ? `one of ${(p.enum as string[]).join(", ")}` : schemaText(p.type ?? "object");
    const bounds = [
      p.minimum !== undefined ? `min ${schemaText(p.minimum)}` : "",
      p.maximum !== undefined ? `max ${schemaText(p.maximum)}` : "",
      p.minLength !== undefined ? `${schemaText(p.minLength)}–${schemaText(p.maxLength ?? "…")} chars` : "",
      p.minLength === undefined && p.maxLength !== undefined ? `at most ${schemaText(p.maxLength)} chars` : "",
      p.pattern !== undefined ? `pattern ${schemaText(p.pattern)}` : "",
      p.default !== undefined ? `default ${JSON.stringify(p.default)}` : "",
    ].filter(Boolean);
    return `  - ${name}${required.has(name) ? " (required)" : ""}: ${type}${bounds.length ? ` (${bounds.join(", ")})` : ""}${p.description ? ` — ${schemaText(p.description)}` : ""}`;
  });
}

/** /llms-full.txt: the whole reference, generated from the tool registry, the operation registry and the constants. */
export function llmsFullTxt(): string {
  const out: string[] = [];
  out.push(`# ${SERVICE_NAME}: full reference`, "", `> ${TAGLINE}`, "", SUMMARY, "");
  out.push(
    `Base URL: ${absoluteUrl("/").replace(/\/$/, "")}`,
    `API version: ${VERSIONS.api}`,
    `MCP: ${absoluteUrl(paths.mcp)} (streamable HTTP, protocol ${VERSIONS.mcpProtocol}; newer revisions negotiated)`,
    `A2A: ${absoluteUrl(A2A_PATH)} (JSON-RPC; A2A 1.0 with the A2A-Version: 1.0 header, 0.3 without it; agent card ${absoluteUrl("/.well-known/agent-card.json")})`,
    "",
    A2A_ROUTING,
    "",
  );
  out.push("MCP client configuration:", "", "```json", JSON.stringify(mcpConfigSnippet(), null, 2), "```", "");
  out.push("## Tools", "");
  for (const layer of LAYERS) {
    out.push(`### Layer ${layer.layer}: ${layer.name}`, "", layer.summary, "");
    for (const t of tools().filter((x) => x.layer === layer.layer)) {
      out.push(`#### ${t.name}`, "", t.description, "", "Arguments:", ...schemaLines(toolParameters(t)));
      if (t.operation.http) out.push("", `REST equivalent: ${t.operation.http.method} ${t.operation.http.path}`);
      out.push("");
    }
  }
  out.push("## REST endpoints", "");
  for (const op of operations()) {
    // The public endpoints and the Agentic Commerce Protocol's (an agent platform's key, or none when anonymous agents are allowed).
    if (!op.http || (op.auth !== "public" && op.auth !== "agent")) continue;
    out.push(`### ${op.http.method} ${op.http.path}`, "", op.description ?? op.summary, "");
    for (const [label, schema] of [
      ["Path:", op.input?.params],
      ["Query:", op.input?.query],
      ["Body:", op.input?.body],
    ] as const) {
      if (schema) out.push(label, ...schemaLines(z.toJSONSchema(schema, { io: "input", unrepresentable: "any" })), "");
    }
  }
  out.push("## Licensing result codes", "");
  for (const [code, text] of Object.entries(LICENSE_CODES)) out.push(`- ${code}: ${text}`);
  out.push(
    "",
    "## Errors",
    "",
    "Errors are RFC 9457 problem documents (application/problem+json) with `status`, `title`, `detail`, a stable `code` and, for invalid input, `errors` naming each field. 429 answers carry Retry-After.",
    "",
    'Over MCP, a refused call is a tool result with `isError: true` whose `structuredContent` carries the same `code`, `detail` and `errors` (each bad argument by name; an argument the tool does not take is refused with "is not an argument of this tool"). A `null` on an optional argument counts as not given. The ACP tools are the exception: see below.',
    "",
  );
  out.push(...acpSection());
  out.push("## Categories", "");
  for (const c of CATEGORIES) out.push(`- ${c}: ${CATEGORY_LABELS[c]}`);
  out.push("", "## Catalog product fields", "", ...schemaLines(z.toJSONSchema(catalogProductSchema)), "");
  out.push("## Pricing", "");
  for (const [k, v] of Object.entries(PRICING)) out.push(`- ${k}: ${v}`);
  out.push(
    "",
    `${FEE_TERMS.platform} ${FEE_TERMS.processor} ${FEE_TERMS.testMode}`,
    "",
    `Products are priced in ${SUPPORTED_CURRENCIES.map((c) => c.toUpperCase()).join(", ")}; \`currency\` is the lower-case ISO 4217 code and amounts are integer minor units. \`price_display\` always ends with the ISO code (e.g. "${formatPrice(1250, "eur")}"), so a "$" is never ambiguous. Amounts in different currencies are never added together.`,
  );
  out.push("", "## Links", "");
  for (const [k, v] of Object.entries(discoveryLinks())) out.push(`- ${k}: ${v}`);
  return out.join("\n") + "\n";
}

/**
 * llms-full.txt's section on the Agentic Commerce Protocol: the six endpoints (their full descriptions are under REST
 * endpoints), the MCP binding, and how refusals read.
 */
function acpSection(): string[] {
  const api = (path: string) => absoluteUrl(`/api/acp${path}`);
  return [
    `## Agentic Commerce Protocol (${ACP_API_VERSION})`,
    "",
    `An agent buys by itself: discovery at ${absoluteUrl("/.well-known/acp.json")}, then six endpoints (REST) or the same as MCP tools (the ACP MCP binding, on ${absoluteUrl(paths.mcp)}):`,
    "",
    `- POST ${api("/checkout_sessions")} (create_checkout_session): body CheckoutSessionCreateRequest {line_items: [{id: product id, quantity?}], currency, capabilities: {interventions: {supported: []}}, buyer?: {email}, discounts?: {codes}}; 201 the CheckoutSession`,
    `- GET ${api("/checkout_sessions/{id}")} (get_checkout_session): the session as it stands; once completed, with its order (the license key in order.fulfillments[0].digital_delivery)`,
    `- POST ${api("/checkout_sessions/{id}")} (update_checkout_session): buyer, line_items or discount codes`,
    `- POST ${api("/agentic_commerce/delegate_payment")} (delegate_payment, test mode): vault a test card for one session; 201 {id: vt_…, created, metadata}`,
    `- POST ${api("/checkout_sessions/{id}/complete")} (complete_checkout_session): payment_data {handler_id, instrument: {type: card, credential: {type: vt|spt, token}}}; the completed session with its order`,
    `- POST ${api("/checkout_sessions/{id}/cancel")} (cancel_checkout_session): optional intent_trace`,
    "",
    `REST headers: API-Version: ${ACP_API_VERSION} on every call; Idempotency-Key on every POST (required: a retry with the same key and body returns the first answer, another body is 422 idempotency_conflict); Authorization: Bearer <agent platform key> ${env().ACP_ANONYMOUS === "on" ? "(optional here: anonymous agents are allowed)" : "(required)"}; Request-Id is echoed. A refusal is ACP's Error object {type, code, message, param?} with the HTTP status; param is the JSONPath of the field to blame.`,
    "",
    "MCP tools take {meta, id?, payload?}: meta {api_version (required), idempotency_key (optional for the checkout tools, as the binding has it: without it a retry is not replayed, but a session completes once and a token pays once; required for delegate_payment), request_id?, …} (other meta fields are ignored), id the session id, payload the REST body. A success is the tool result with the session as structuredContent. A refusal is a JSON-RPC error {code: -32000, message, data: ACP's Error object}, its param relative to the arguments ($.payload.currency, $.meta.api_version, $.id); read data.type and data.code. An unknown tool or a malformed tools/call stays the protocol's -32602.",
    "",
    'Error codes: the checkout endpoints answer our own stable codes (checkout_session_not_found, checkout_session_completed, invalid_item_id, payment_declined with type processing_error, …). delegate_payment\'s Error allows six codes only (invalid_card, duplicate_request, idempotency_conflict, too_many_requests, idempotency_key_required, idempotency_in_flight): the idempotency codes are as they are, a 429 is too_many_requests (type rate_limit_exceeded), a failure on our side too_many_requests (type processing_error or service_unavailable), and every other refusal is invalid_card with param naming the field and our code at the end of message, e.g. "No checkout session of yours has that id. (checkout_session_not_found)".',
    "",
  ];
}

/** /oacs: the capability spec the catalog's `_oacs.spec` points to — what the catalog format means and how to act on it. */
export function oacsSpec() {
  return {
    oacs_version: VERSIONS.oacs,
    title: "Open Agent Commerce Spec (as served by this catalog)",
    description:
      "How an agent reads this service's catalog and acts on it: each product carries what it is, what it runs on and accepts, how it is licensed, and where to buy it. An implementation publishes a catalog (`_oacs` block included), a discovery document, and the operations below.",
    issuer: absoluteUrl("/").replace(/\/$/, ""),
    catalog: {
      url: absoluteUrl(paths.catalog),
      version: VERSIONS.catalog,
      page_size: 20,
      paging: "follow _links.next until null",
      product_schema: z.toJSONSchema(catalogProductSchema),
    },
    discovery: absoluteUrl(paths.discover),
    operations: {
      browse: { rest: `GET ${absoluteUrl(paths.catalog)}`, mcp_tool: "browse_marketplace" },
      details: { rest: `GET ${absoluteUrl("/api/marketplace/product/{id}")}`, mcp_tool: "get_product_details" },
      purchase: {
        rest: `POST ${absoluteUrl("/api/checkout/create")}`,
        mcp_tool: "agent_checkout",
        result: "a hosted checkout url for the buyer; the key is e-mailed on payment",
      },
      follow_up: {
        rest: `GET ${absoluteUrl("/api/checkout/{session_id}")}`,
        mcp_tool: "get_checkout_status",
        result: "the status; once paid, the license key",
      },
      verify: { rest: `POST ${absoluteUrl("/api/receipt")}`, mcp_tool: "verify_receipt" },
    },
    seat_models: {
      "per-machine": "each activated machine takes a seat",
      "per-user": "one person, several machines",
      "per-seat": "one seat per license",
      floating: "seats in use at the same time",
    },
    pricing: { ...PRICING },
    identity: absoluteUrl("/.well-known/did.json"),
  };
}
