import { z } from "zod";
import { sellerSalesSummary } from "../selling/sales.ts";
import { SELLER_SCOPES, SCOPE_DESCRIPTIONS, RESOURCE_METADATA_PATH } from "../seller-api/tokens.ts";
import { CACHE } from "../http/headers.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { SERVICE_NAME } from "../versions.ts";
import { operation, type Operation } from "./define.ts";

const salesSummarySchema = z.object({
  days: z.int(),
  from: z.string().describe("Start of the window (UTC midnight, days − 1 days before today)"),
  to: z.string(),
  orders: z.int().describe("Paid orders in the window, all currencies"),
  refunded_orders: z.int().describe("Orders refunded (fully or partly) in the window"),
  currencies: z
    .array(
      z.object({
        currency: z.string(),
        orders: z.int(),
        /** Minor units; every figure but net and tax is non-negative. */
        gross_cents: z.int(),
        discount_cents: z.int(),
        fee_cents: z.int(),
        refund_cents: z.int(),
        dispute_cents: z.int(),
        net_cents: z.int().describe("gross − discounts − fees − refunds − disputes; tax is not part of it"),
        tax_cents: z.int(),
        gross_display: z.string(),
        fee_display: z.string(),
        refund_display: z.string(),
        net_display: z.string(),
      }),
    )
    .describe("One entry per currency, never added across currencies"),
  licenses_issued: z.object({ total: z.int(), purchase: z.int(), complimentary: z.int(), trial: z.int() }),
  active_licenses: z.int().describe("Licenses active now (not revoked, refunded, suspended or expired), trials excluded"),
  top_products: z.array(
    z.object({
      product_id: z.string(),
      name: z.string(),
      orders: z.int(),
      gross: z.array(z.object({ currency: z.string(), gross_cents: z.int(), gross_display: z.string() })),
    }),
  ),
});

const summaryText = (s: z.infer<typeof salesSummarySchema>): string => {
  const perCurrency = s.currencies.length
    ? s.currencies.map(
        (c) => `${c.currency.toUpperCase()}: gross ${c.gross_display}, fees ${c.fee_display}, refunds ${c.refund_display}, net ${c.net_display}`,
      )
    : ["No sales."];
  const top = s.top_products.map(
    (p, i) => `${i + 1}. ${p.name} (${p.product_id}): ${p.orders} orders, ${p.gross.map((g) => g.gross_display).join(" + ")}`,
  );
  return [
    `Last ${s.days} days (${s.from.slice(0, 10)} to ${s.to.slice(0, 10)}): ${s.orders} orders, ${s.refunded_orders} refunded.`,
    ...perCurrency,
    `Licenses issued: ${s.licenses_issued.total} (${s.licenses_issued.purchase} purchased, ${s.licenses_issued.complimentary} complimentary, ${s.licenses_issued.trial} trials); active now: ${s.active_licenses}.`,
    ...(top.length ? ["Top products:", ...top] : []),
  ].join("\n");
};

/**
 * RFC 9728 OAuth 2.0 Protected Resource Metadata. There is no OAuth authorization server: seller API tokens are
 * created in the dashboard and sent as `Authorization: Bearer ilmsk_…`, so `authorization_servers` is left out (the
 * RFC makes it optional) and the non-standard `token_*` fields say where tokens come from.
 */
const protectedResourceSchema = z.object({
  resource: z.string().describe("The protected resource's identifier: the base URL, or the MCP endpoint's URL"),
  resource_name: z.string(),
  resource_documentation: z.string(),
  bearer_methods_supported: z.array(z.literal("header")),
  scopes_supported: z.array(z.enum(SELLER_SCOPES)),
  token_type: z.literal("seller_api_token").describe("Non-standard: the kind of Bearer token this resource takes"),
  token_prefix: z.literal("ilmsk_"),
  token_issuance: z.string().describe("Non-standard: how a token is obtained (there is no OAuth authorization server)"),
  token_management_uri: z.string().describe("Non-standard: the dashboard page that creates and revokes tokens"),
  scope_descriptions: z.record(z.string(), z.string()),
});

function protectedResource(resource: string, name: string): z.infer<typeof protectedResourceSchema> {
  return {
    resource,
    resource_name: name,
    resource_documentation: absoluteUrl(paths.openapi),
    bearer_methods_supported: ["header"],
    scopes_supported: [...SELLER_SCOPES],
    token_type: "seller_api_token",
    token_prefix: "ilmsk_",
    token_issuance:
      "No OAuth authorization server: a seller creates a token in the seller dashboard (API tokens) with a name, scopes and an optional expiry, and sends it as Authorization: Bearer ilmsk_…. On the MCP endpoint it adds the seller's own tools to tools/list.",
    token_management_uri: absoluteUrl("/dashboard/api-tokens"),
    scope_descriptions: { ...SCOPE_DESCRIPTIONS },
  };
}

/** What a seller's own agent uses: the sales summary, and the documents that tell MCP clients how to authenticate. */
export const SELLER_AGENTS: Operation[] = [
  operation({
    id: "getSalesSummary",
    summary: "Your sales summary",
    description:
      "Your figures over the last `days` days (1–365, default 30; whole UTC days, today included): gross, fees, refunds and net per currency (never added across currencies; tax apart), paid and refunded orders, licenses issued (purchased, complimentary, trials) and active now, and your five best-selling products in the window.",
    tag: "Orders",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "GET", path: "/api/v1/sales/summary" },
    input: {
      query: z.object({
        days: z.coerce.number().int().min(1).max(365).default(30).describe("How many days back, today included (1–365)"),
      }),
    },
    output: salesSummarySchema,
    errors: [401, 403],
    handler: async (q, c) => sellerSalesSummary(c.seller.developer.id, q.days),
    tools: [
      {
        name: "seller_sales_summary",
        title: "Sales summary",
        layer: 6,
        description:
          "Your store's sales over the last `days` days (default 30): gross, fees, refunds and net per currency, orders and refunded orders, licenses issued and active, and the best-selling products. Use it to answer how sales are going; amounts are in minor units with a formatted display string, one entry per currency.",
        text: summaryText,
      },
    ],
  }),
  operation({
    id: "getProtectedResourceMetadata",
    summary: "Protected resource metadata (RFC 9728)",
    description:
      "How a client authenticates to the seller API and to the seller tools on MCP: Bearer seller API tokens (ilmsk_…) in the Authorization header, created in the seller dashboard with scopes; there is no OAuth authorization server. Named by `resource_metadata` in every 401 and 403 of the seller API.",
    tag: "Service",
    auth: "public",
    http: { method: "GET", path: RESOURCE_METADATA_PATH, cache: CACHE.document },
    output: protectedResourceSchema,
    // The resource identifier is the origin without a trailing slash: the metadata URL is built by inserting the
    // well-known path between host and (empty) path, and clients compare the two (RFC 9728 §3.3).
    handler: () => protectedResource(absoluteUrl("/").replace(/\/$/, ""), `${SERVICE_NAME} seller API`),
  }),
  operation({
    id: "getMcpProtectedResourceMetadata",
    summary: "Protected resource metadata of the MCP endpoint (RFC 9728)",
    description:
      "The same metadata for the MCP endpoint as resource, at the path-suffixed address MCP clients try first. A seller API token on MCP requests adds the seller's own tools.",
    tag: "Service",
    auth: "public",
    http: { method: "GET", path: `${RESOURCE_METADATA_PATH}${paths.mcp}`, cache: CACHE.document },
    output: protectedResourceSchema,
    handler: () => protectedResource(absoluteUrl(paths.mcp), `${SERVICE_NAME} MCP server`),
  }),
];
