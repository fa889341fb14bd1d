import { ACP_API_VERSION } from "../acp/version.ts";
import { A2A_PROTOCOL_VERSION, type AgentCard as A2AAgentCard } from "@a2a-js/sdk";
import { A2A_LEGACY_PROTOCOL_VERSION } from "@a2a-js/sdk/compat/v0_3";
import { env } from "../env.ts";
import { serviceDid } from "../identity/did.ts";
import { CATEGORIES } from "../marketplace/constants.ts";
import { PRICING } from "../pricing.ts";
import { SERVICE_NAME, VERSIONS } from "../versions.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { RESOURCE_METADATA_PATH } from "../seller-api/tokens.ts";
import { MCP_CAPABILITIES, MCP_SERVER_INFO } from "./mcp-info.ts";
import { strictParameters } from "./strict-schema.ts";
import { LAYERS, tools, toolParameters } from "./tools.ts";
import { A2A_PATH, A2A_ROUTING } from "./a2a/paths.ts";

/**
 * The discovery documents agents read: the discovery payload, the OpenAI tool manifest, the A2A agent card, the MCP
 * server card, agents.json and ai-plugin.json. Every one derives from the tool registry, the pricing constants and
 * BASE_URL, so they cannot disagree with each other or with the MCP server.
 */

export const TAGLINE = "Machine-bound license keys and a marketplace for indie software, ready for AI agents.";
export const SUMMARY =
  "Indie developers list software (audio plugins, desktop apps, game assets, 3D/VFX, developer and creative tools). People and agents browse, buy through a hosted checkout, and receive a license key by e-mail; apps activate and validate keys per machine. Every operation is open (no API key) over REST, MCP and an OpenAI-format tool manifest.";

/** MCP protocol revisions this server negotiates; the first is the one the interface advertises. */
const MCP_PROTOCOL_VERSIONS = [VERSIONS.mcpProtocol, "2025-03-26", "2025-06-18", "2025-11-25"] as const;

function contactAddress(): string {
  const from = env().MAIL_FROM;
  return from.match(/<([^>]+)>/)?.[1] ?? from;
}

export function mcpConfigSnippet() {
  return { mcpServers: { "indie-license-market": { type: "http", url: absoluteUrl(paths.mcp) } } };
}

/** The 18 addresses the discovery payload links to. */
export function discoveryLinks() {
  return {
    self: absoluteUrl(paths.discover),
    mcp: absoluteUrl(paths.mcp),
    tools: absoluteUrl(paths.tools),
    catalog: absoluteUrl(paths.catalog),
    terms: absoluteUrl(paths.terms),
    receipt: absoluteUrl("/api/receipt"),
    checkout: absoluteUrl("/api/checkout/create"),
    marketplace: absoluteUrl("/api/marketplace/listings"),
    categories: absoluteUrl("/api/marketplace/categories"),
    openapi: absoluteUrl(paths.openapi),
    agents: absoluteUrl("/.well-known/agents.json"),
    agent_card: absoluteUrl("/.well-known/agent-card.json"),
    mcp_card: absoluteUrl("/.well-known/mcp/server-card.json"),
    ai_plugin: absoluteUrl("/.well-known/ai-plugin.json"),
    did: absoluteUrl("/.well-known/did.json"),
    llms_txt: absoluteUrl("/llms.txt"),
    llms_full: absoluteUrl("/llms-full.txt"),
    source: absoluteUrl("/agents"),
  };
}

/** The name of a tool layer; every tool's layer is one of LAYERS. */
function layerName(layer: number): string {
  const found = LAYERS.find((l) => l.layer === layer);
  if (!found) throw new Error(`unknown tool layer ${String(layer)}`);
  return found.name;
}

function layers() {
  return LAYERS.map((l) => ({
    layer: l.layer,
    name: l.name,
    summary: l.summary,
    tools: tools()
      .filter((t) => t.layer === l.layer)
      .map((t) => t.name),
  }));
}

export function discoveryPayload() {
  const e = env();
  return {
    name: SERVICE_NAME,
    tagline: TAGLINE,
    url: e.BASE_URL,
    identity: serviceDid(),
    version: VERSIONS.api,
    updated: "2026-11-21",
    contact: contactAddress(),
    summary: SUMMARY,
    protocols: {
      mcp: {
        endpoint: absoluteUrl(paths.mcp),
        transport: "streamable-http",
        protocol_version: VERSIONS.mcpProtocol,
        supported_versions: [...MCP_PROTOCOL_VERSIONS],
        description: `${tools().length} tools over JSON-RPC (tools/list, tools/call); stateless, no authentication. A seller's API token (Authorization: Bearer ilmsk_…; see ${absoluteUrl(RESOURCE_METADATA_PATH)}) adds that seller's own tools.`,
        config_snippet: mcpConfigSnippet(),
      },
      openapi: { url: absoluteUrl(paths.openapi), version: "3.1.0" },
      openai_plugin: { manifest: absoluteUrl("/.well-known/ai-plugin.json"), tools: absoluteUrl(paths.tools) },
      a2a: {
        agent_card: absoluteUrl("/.well-known/agent-card.json"),
        endpoint: absoluteUrl(A2A_PATH),
        transport: "JSONRPC",
        protocol_versions: [A2A_PROTOCOL_VERSION, A2A_LEGACY_PROTOCOL_VERSION],
        description: `${tools().length} skills, one per tool, over A2A JSON-RPC (SendMessage and SendStreamingMessage; message/send and message/stream for 0.3 clients); no authentication.`,
      },
      did: { id: serviceDid(), document: absoluteUrl("/.well-known/did.json"), method: "did:web" },
    },
    capabilities: {
      overview: `${tools().length} tools in ${LAYERS.length} layers: discovery and integration help, marketplace and licensing operations, terms, agent checkout, and signed receipts.`,
      layers: layers(),
    },
    discovery: {
      how_agents_find_us: [
        `GET ${absoluteUrl(paths.discover)} (this document)`,
        `GET ${absoluteUrl("/llms.txt")} (a map for language models)`,
        `GET ${absoluteUrl("/.well-known/agent-card.json")} (A2A agent card)`,
        `GET ${absoluteUrl("/.well-known/mcp/server-card.json")} (MCP server card)`,
        `GET ${absoluteUrl("/.well-known/ai-plugin.json")} and ${absoluteUrl(paths.openapi)}`,
        `The Link header (rel="mcp") on every API response`,
      ],
      no_registry_needed: "Everything is discoverable from the base URL alone: no registry, account or API key is required.",
    },
    quickstart: {
      browse: {
        description: "Find a product.",
        mcp: {
          method: "tools/call",
          params: { name: "browse_marketplace", arguments: { query: "tape saturation", category: "audio-plugins", limit: 5 } },
        },
        rest: `GET ${absoluteUrl("/api/marketplace/listings")}?search=tape&category=audio-plugins`,
      },
      buy_by_yourself: {
        description: `Pay by yourself with the Agentic Commerce Protocol (${ACP_API_VERSION}): create_checkout_session, delegate_payment (test mode) or a Stripe Shared Payment Token, then complete_checkout_session; the completed session's order carries the license key.`,
        mcp: {
          method: "tools/call",
          params: {
            name: "create_checkout_session",
            arguments: {
              meta: { api_version: ACP_API_VERSION, idempotency_key: "<fresh uuid>" },
              payload: { line_items: [{ id: "<product id>" }], currency: "usd", buyer: { email: "buyer@example.com" } },
            },
          },
        },
        rest: `POST ${absoluteUrl("/api/acp/checkout_sessions")} (API-Version: ${ACP_API_VERSION}, Idempotency-Key), then POST ${absoluteUrl("/api/acp/agentic_commerce/delegate_payment")} and POST ${absoluteUrl("/api/acp/checkout_sessions/")}<id>/complete; discovery: ${absoluteUrl("/.well-known/acp.json")}`,
      },
      purchase: {
        description:
          "A person pays: open a checkout for a buyer, who pays at the returned url; the key is e-mailed, and the checkout's status returns it once paid.",
        mcp: {
          method: "tools/call",
          params: { name: "agent_checkout", arguments: { product_id: "<id>", buyer_email: "buyer@example.com", agent_id: "<your agent id>" } },
        },
        rest: `POST ${absoluteUrl("/api/checkout/create")} {"product_id","buyer_email","agent_id"}; then GET ${absoluteUrl("/api/checkout/")}<session_id>`,
      },
      verify: {
        description: "Check a license and verify its signed receipt.",
        mcp: { method: "tools/call", params: { name: "verify_receipt", arguments: { receipt: "<receipt object>", signature: "<hex>" } } },
        rest: `GET ${absoluteUrl("/api/receipt")}?key=<key>, then POST it back to ${absoluteUrl("/api/receipt")}`,
      },
    },
    pricing: { ...PRICING },
    categories: [...CATEGORIES],
    _links: discoveryLinks(),
  };
}

export function toolManifest() {
  return {
    schema_version: VERSIONS.toolManifest,
    name_for_human: SERVICE_NAME,
    name_for_model: "indie_license_market",
    description_for_human: TAGLINE,
    description_for_model: `${SUMMARY} Use browse_marketplace (paged: follow next_page) and get_product_details to find software. To buy and pay by yourself: create_checkout_session, delegate_payment, complete_checkout_session (the Agentic Commerce Protocol; the order carries the license key). When a person pays instead: agent_checkout or purchase_license, give them the returned url, then get_checkout_status returns the key. activate_license/validate_license/deactivate_license for machine licensing, get_receipt/verify_receipt for proof of purchase. Amounts are integer minor units of each product's currency. Optional arguments may be null (read as not given).`,
    auth: { type: "none" },
    // Strict mode (OpenAI): a model calling these can only send arguments the schema allows.
    tools: tools().map((t) => {
      const strict = strictParameters(toolParameters(t));
      return {
        type: "function" as const,
        function: { name: t.name, description: t.description, parameters: strict ?? toolParameters(t), strict: strict !== null },
      };
    }),
    mcp: {
      endpoint: absoluteUrl(paths.mcp),
      transport: "streamable-http",
      protocol_version: VERSIONS.mcpProtocol,
      config_snippet: mcpConfigSnippet(),
    },
    _links: {
      self: absoluteUrl(paths.tools),
      openapi: absoluteUrl(paths.openapi),
      discover: absoluteUrl(paths.discover),
      mcp: absoluteUrl(paths.mcp),
    },
  };
}

/**
 * A2A agent card (/.well-known/agent-card.json, also /.well-known/agent.json): one skill per tool, the skill id being
 * the tool's name. One document serves both protocol generations, so caches need no Vary: A2A 1.0 clients (the
 * official SDK's `ClientFactory.createFromUrl`) read `supportedInterfaces`, which lists the JSON-RPC endpoint for 1.0
 * and for 0.3; 0.3 clients read `url`, `preferredTransport`, `protocolVersion` and `additionalInterfaces` (the SDK's
 * own compat card carries the same fields). The endpoint tells the two apart by the `A2A-Version` header.
 */
export function agentCard() {
  const endpoint = absoluteUrl(A2A_PATH);
  const io = ["application/json", "text/plain"];
  const card: A2AAgentCard = {
    name: SERVICE_NAME,
    description: `${SUMMARY} ${A2A_ROUTING}`,
    supportedInterfaces: [
      { url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
      { url: endpoint, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_LEGACY_PROTOCOL_VERSION },
    ],
    provider: { organization: SERVICE_NAME, url: env().BASE_URL },
    version: VERSIONS.server,
    documentationUrl: absoluteUrl("/llms-full.txt"),
    iconUrl: absoluteUrl("/icon.svg"),
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: io,
    defaultOutputModes: io,
    skills: tools().map((t) => ({
      id: t.name,
      name: t.title,
      description: `${t.description} Call: a data part {"skill":"${t.name}","arguments":{…}}, the arguments as the tool's JSON Schema in ${absoluteUrl(paths.tools)} says.`,
      tags: [layerName(t.layer).toLowerCase(), "licensing", ...(t.layer === 2 || t.layer === 4 ? ["marketplace"] : [])],
      examples: t.name === "browse_marketplace" ? ["tape saturation", '{"skill":"browse_marketplace","arguments":{"query":"synth","limit":5}}'] : [],
      inputModes: io,
      outputModes: io,
      securityRequirements: [],
    })),
    signatures: [],
  };
  return {
    ...card,
    // The A2A 0.3 fields, for clients of that generation.
    protocolVersion: `${A2A_LEGACY_PROTOCOL_VERSION}.0`,
    url: endpoint,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url: endpoint, transport: "JSONRPC" }],
  };
}

/** MCP server card (/.well-known/mcp/server-card.json), after the server-card draft. */
export function mcpServerCard() {
  return {
    $schema: "https://static.modelcontextprotocol.io/schemas/mcp-server-card/v1.json",
    version: VERSIONS.server,
    protocolVersion: VERSIONS.mcpProtocol,
    serverInfo: { name: MCP_SERVER_INFO.name, title: SERVICE_NAME, version: VERSIONS.server },
    name: MCP_SERVER_INFO.name,
    title: SERVICE_NAME,
    description: SUMMARY,
    websiteUrl: env().BASE_URL,
    remotes: [{ type: "streamable-http", url: absoluteUrl(paths.mcp), supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS] }],
    transport: { type: "streamable-http", endpoint: paths.mcp },
    capabilities: MCP_CAPABILITIES,
    authentication: { required: false, schemes: [] },
    tools: tools().map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: toolParameters(t) })),
    resources: [],
    prompts: [],
  };
}

/** agents.json: how an agent reaches each capability over plain HTTP. */
export function agentsJson() {
  return {
    agentsJson: "0.1.0",
    info: { title: SERVICE_NAME, version: VERSIONS.api, description: SUMMARY },
    sources: [{ id: "api", path: absoluteUrl(paths.openapi) }],
    mcp: { endpoint: absoluteUrl(paths.mcp), transport: "streamable-http", protocol_version: VERSIONS.mcpProtocol },
    flows: [
      {
        id: "buy_license",
        title: "Find a product and buy a license for a buyer (hosted checkout)",
        description: "Browse, read the details, open a checkout, give the buyer the payment URL, then poll the session.",
        actions: [
          { id: "browse", sourceId: "api", operationId: "listListings" },
          { id: "details", sourceId: "api", operationId: "getProduct" },
          { id: "checkout", sourceId: "api", operationId: "createCheckout" },
          { id: "status", sourceId: "api", operationId: "getCheckoutStatus" },
        ],
      },
      {
        id: "buy_license_acp",
        title: "Buy a license by yourself with the Agentic Commerce Protocol",
        description: `ACP ${ACP_API_VERSION} (discovery: ${absoluteUrl("/.well-known/acp.json")}): create a checkout session for a product (API-Version header; Idempotency-Key on every POST; body with line_items, currency and capabilities), give the buyer's e-mail, vault a payment (test mode: delegate_payment; with Stripe: a Shared Payment Token), complete the session; its order carries the license key. The same five checkout operations are MCP tools on ${absoluteUrl(paths.mcp)} (the ACP MCP binding: {meta, id, payload}; a refusal is a JSON-RPC error -32000 with ACP's Error as data).`,
        actions: [
          { id: "discover", sourceId: "api", operationId: "getAcpDiscovery" },
          { id: "browse", sourceId: "api", operationId: "listListings" },
          { id: "create", sourceId: "api", operationId: "createAcpCheckoutSession" },
          { id: "buyer", sourceId: "api", operationId: "updateAcpCheckoutSession" },
          { id: "pay", sourceId: "api", operationId: "delegatePayment" },
          { id: "complete", sourceId: "api", operationId: "completeAcpCheckoutSession" },
          { id: "order", sourceId: "api", operationId: "getAcpCheckoutSession" },
          { id: "cancel", sourceId: "api", operationId: "cancelAcpCheckoutSession" },
        ],
      },
      {
        id: "license_a_machine",
        title: "Activate and validate a license on a machine",
        description: "Activate once per machine, then validate at every start.",
        actions: [
          { id: "activate", sourceId: "api", operationId: "activateLicense" },
          { id: "validate", sourceId: "api", operationId: "validateLicense" },
        ],
      },
      {
        id: "prove_purchase",
        title: "Issue and verify a signed receipt",
        description: "Anyone can verify a receipt without credentials.",
        actions: [
          { id: "receipt", sourceId: "api", operationId: "getReceipt" },
          { id: "verify", sourceId: "api", operationId: "verifyReceipt" },
        ],
      },
    ],
  };
}

/** ai-plugin.json: the OpenAI plugin manifest, pointing at the OpenAPI description. */
export function aiPluginManifest() {
  return {
    schema_version: "v1",
    name_for_human: SERVICE_NAME,
    name_for_model: "indie_license_market",
    description_for_human: TAGLINE,
    description_for_model: toolManifest().description_for_model,
    auth: { type: "none" },
    api: { type: "openapi", url: absoluteUrl(paths.openapi), is_user_authenticated: false },
    logo_url: absoluteUrl("/icon.svg"),
    contact_email: contactAddress(),
    legal_info_url: absoluteUrl(paths.terms),
  };
}
