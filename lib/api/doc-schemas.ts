import { z } from "zod";
import { CATEGORIES } from "../marketplace/constants.ts";
import { catalogProductSchema, CATALOG_SORTS } from "../marketplace/schemas.ts";

/** Response shapes of the documents, for the OpenAPI description (their builders live with their domains). */
const uri = z.url();

export const healthSchema = z.object({ status: z.literal("ok"), version: z.string() });

export const catalogResponseSchema = z.object({
  catalog_version: z.string(),
  issuer: z.string(),
  generated_at: z.iso.datetime(),
  total: z.int(),
  _oacs: z.object({ version: z.string(), spec: uri, discovery: uri, catalog: uri }),
  products: z.array(catalogProductSchema),
  _agent_howto: z.record(z.string(), z.string()),
  filters: z.object({
    categories: z.array(z.enum(CATEGORIES)),
    sort_options: z.array(z.enum(CATALOG_SORTS)),
    current: z.object({ category: z.string().nullable(), search: z.string().nullable(), sort: z.string(), page: z.int() }),
  }),
  _links: z.object({ self: uri, next: uri.nullable(), mcp: uri, tools: uri, openapi: uri, discover: uri, terms: uri }),
});

export const termsSchema = z.looseObject({
  provider: z.string(),
  pricing: z.looseObject({
    model: z.string(),
    transaction_fee_percent: z.number(),
    monthly_fee_cents: z.int(),
    sdk_cost: z.string(),
    self_host_cost: z.string(),
  }),
  capabilities: z.record(z.string(), z.unknown()),
  endpoints: z.record(z.string(), z.string()),
  comparison: z.array(z.record(z.string(), z.unknown())),
});

export const didDocumentSchema = z.looseObject({
  "@context": z.array(z.string()),
  id: z.string(),
  verificationMethod: z.array(z.looseObject({ id: z.string(), type: z.string(), controller: z.string(), publicKeyMultibase: z.string() })),
  authentication: z.array(z.string()),
  assertionMethod: z.array(z.string()),
});

export const toolManifestSchema = z.object({
  schema_version: z.string(),
  name_for_human: z.string(),
  name_for_model: z.string(),
  description_for_human: z.string(),
  description_for_model: z.string(),
  auth: z.object({ type: z.string() }),
  tools: z.array(
    z.object({
      type: z.literal("function"),
      function: z.object({
        name: z.string(),
        description: z.string(),
        parameters: z.record(z.string(), z.unknown()),
        strict: z.boolean().describe("OpenAI strict mode: every argument is listed, optional ones nullable (null means not given)"),
      }),
    }),
  ),
  mcp: z.object({ endpoint: uri, transport: z.string(), protocol_version: z.string(), config_snippet: z.record(z.string(), z.unknown()) }),
  _links: z.record(z.string(), z.string()),
});

export const discoverySchema = z.looseObject({
  name: z.string(),
  tagline: z.string(),
  url: uri,
  identity: z.string(),
  version: z.string(),
  updated: z.string(),
  contact: z.string(),
  summary: z.string(),
  protocols: z.record(z.string(), z.unknown()),
  capabilities: z.looseObject({ overview: z.string(), layers: z.array(z.unknown()) }),
  discovery: z.looseObject({ how_agents_find_us: z.array(z.string()), no_registry_needed: z.string() }),
  quickstart: z.record(z.string(), z.unknown()),
  pricing: z.record(z.string(), z.unknown()),
  _links: z.record(z.string(), z.string()),
});

export const webhookAckSchema = z.object({
  received: z.literal(true),
  duplicate: z.boolean(),
  applied: z.boolean(),
  fulfilled: z.boolean(),
  reason: z.string().optional(),
});
