import { z } from "zod";
import { createCheckout } from "../checkout/create-checkout.ts";
import { getCheckoutStatus } from "../checkout/get-checkout.ts";
import { agentIdSchema, checkoutSessionSchema } from "../checkout/schemas.ts";
import { activateMachine } from "../licensing/activate-machine.ts";
import { checkLicenseStatus, licenseStatusSchema } from "../licensing/check-license-status.ts";
import { deactivateMachine } from "../licensing/deactivate-machine.ts";
import {
  activationResultSchema,
  deactivationResultSchema,
  licenseKeySchema,
  machineFingerprintSchema,
  pluginIdSchema,
  validationResultSchema,
} from "../licensing/schemas.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { validateLicense } from "../licensing/validate-license.ts";
import { CATEGORIES } from "../marketplace/constants.ts";
import { getProduct } from "../marketplace/get-product.ts";
import { listProducts } from "../marketplace/list-products.ts";
import { listingProductSchema, productDetailsSchema, productIdSchema, SEARCH_MAX_LENGTH } from "../marketplace/schemas.ts";
import { toListingProduct } from "../marketplace/serialize.ts";
import { issueReceipt } from "../receipts/issue-receipt.ts";
import { receiptVerificationSchema, signedReceiptSchema } from "../receipts/schemas.ts";
import { verifyReceipt } from "../receipts/verify-receipt.ts";
import { getTerms } from "../terms/get-terms.ts";
import { absoluteUrl } from "../urls.ts";
import { env } from "../env.ts";
import { serviceDid } from "../identity/did.ts";
import { signingKeys } from "../identity/service-keys.ts";
import { explainLicensing } from "./devtools/explain.ts";
import { generateLicenseIntegration } from "./devtools/integration.ts";
import { INTEGRATION_LANGUAGES, LICENSING_TOPICS, SERVER_TARGETS } from "./devtools/options.ts";
import { generateServerConfig } from "./devtools/server-config.ts";
import { generateTestLicenseKey } from "./devtools/test-key.ts";

/**
 * The 14 tools, each declared once: name, layer, a description written for a model, the zod input schema, and a
 * handler that calls the same lib/ function as the REST route of the same purpose. The MCP server, the OpenAI tool
 * manifest, the discovery payload, the server card, llms-full.txt and the "For AI agents" page all derive from this.
 */
export interface ToolResult {
  /** What the model reads. */
  text: string;
  /** The same facts as data, in the REST shape, when the result is data. */
  data?: Record<string, unknown>;
}

export interface ToolDef<S extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  layer: 1 | 2 | 3 | 4 | 5;
  description: string;
  input: S;
  output?: z.ZodObject;
  /** The REST operation this tool mirrors, if any. */
  rest?: string;
  handler: (args: z.output<S>) => Promise<ToolResult>;
}

export const LAYERS = [
  { layer: 1, name: "Discovery", summary: "Learn how licensing works here and generate what you need to integrate it." },
  { layer: 2, name: "Operational", summary: "Browse and buy products; activate, validate and release licenses." },
  { layer: 3, name: "Terms", summary: "Pricing and terms of the service." },
  { layer: 4, name: "Checkout", summary: "Agent checkout with attribution." },
  { layer: 5, name: "Receipts", summary: "Portable signed receipts anyone can verify." },
] as const;

const tool = <S extends z.ZodObject>(t: ToolDef<S>) => t as unknown as ToolDef;
const json = (v: unknown) => JSON.stringify(v, null, 2);
const data = (text: string, value: object): ToolResult => ({ text, data: value as Record<string, unknown> });

const browseOutput = z.object({ products: z.array(listingProductSchema), total: z.int(), returned: z.int() });
const agentCheckoutOutput = checkoutSessionSchema.extend({
  status_url: z.url().describe("GET it to learn whether the buyer paid and where the key was sent"),
  expires_at: z.iso.datetime(),
  amount_cents: z.int(),
  currency: z.string(),
});

export const TOOLS: ToolDef[] = [
  tool({
    name: "generate_license_integration",
    title: "Generate license integration code",
    layer: 1,
    description:
      "Generate complete, idiomatic code that adds this service's machine-bound licensing to an app: computes the machine fingerprint, activates on first run, validates on every start, keeps running offline on a signed license file it verifies with the embedded Ed25519 public key, and handles every error. Returns Markdown with setup steps and fenced code blocks. For this deployment the current public keys are embedded already.",
    input: z.object({
      language: z.enum(INTEGRATION_LANGUAGES).describe("Target language or framework"),
      app_id: z.string().max(200).optional().describe("The product's plugin_id, a reverse-domain identifier such as com.example.app"),
      server_url: z.string().max(300).optional().describe("License validation server URL; defaults to this deployment"),
    }),
    handler: async (a) => {
      // Code for this deployment embeds its published keys, so offline verification works as generated.
      const ours = !a.server_url || a.server_url.replace(/\/+$/, "") === env().BASE_URL;
      const public_keys = ours
        ? Object.fromEntries((await signingKeys()).all.map((k) => [`${serviceDid()}#${k.id}`, k.raw.toString("base64url")]))
        : undefined;
      return { text: generateLicenseIntegration({ language: a.language, app_id: a.app_id, server_url: a.server_url, public_keys }) };
    },
  }),
  tool({
    name: "explain_licensing",
    title: "Explain a licensing topic",
    layer: 1,
    description: "Explain how a part of licensing works on this service, with the endpoints and codes to use: machine binding, offline validation, trials, revocation, anti-tamper, server setup, pricing, or a comparison with other licensing services.",
    input: z.object({ topic: z.enum(LICENSING_TOPICS).describe("What to explain") }),
    handler: async (a) => ({ text: explainLicensing(a.topic) }),
  }),
  tool({
    name: "generate_server_config",
    title: "Generate deployment configuration",
    layer: 1,
    description: "Generate deployable configuration for self-hosting this service (Dockerfile and compose, fly.toml, railway.json, render.yaml, or systemd plus a reverse proxy), with PostgreSQL for production.",
    input: z.object({
      target: z.enum(SERVER_TARGETS).describe("Where to deploy"),
      domain: z.string().max(253).optional().describe("Public host name, e.g. licenses.example.com"),
    }),
    handler: async (a) => ({ text: generateServerConfig({ target: a.target, domain: a.domain }) }),
  }),
  tool({
    name: "generate_test_license_key",
    title: "Generate a test license key",
    layer: 1,
    description: "Generate a key in the XXXX-XXXX-XXXX-XXXX format for tests and UI mock-ups. It is clearly a test key and never validates as a real license.",
    input: z.object({
      prefix: z.string().min(2).max(4).regex(/^[A-Za-z0-9]+$/, "must be letters and digits").optional().describe("2 to 4 characters to start the key with"),
    }),
    output: z.object({ license_key: z.string(), test: z.literal(true), note: z.string() }),
    handler: async (a) => {
      const key = generateTestLicenseKey({ prefix: a.prefix });
      return data(`${key.license_key}\n\n${key.note}`, key);
    },
  }),
  tool({
    name: "browse_marketplace",
    title: "Browse the marketplace",
    layer: 2,
    rest: "GET /api/marketplace/listings",
    description: "Search and browse software listed on the marketplace (audio plugins, desktop apps, game assets, 3D/VFX, developer tools, creative tools). Returns products with price, platforms, seat limits and trial availability.",
    input: z.object({
      query: z.string().max(SEARCH_MAX_LENGTH).optional().describe("Free-text search"),
      category: z.enum(CATEGORIES).optional(),
      limit: z.number().int().min(1).max(20).default(10).describe("How many products to return, 1 to 20"),
    }),
    output: browseOutput,
    handler: async (a) => {
      const page = await listProducts({ category: a.category, search: a.query, sort: a.query ? "popular" : "newest", page: 1, limit: a.limit });
      const products = page.rows.map(toListingProduct);
      const lines = products.map((p) => `- ${p.name} (${p.id}) by ${p.developer}: ${p.price_display}, ${p.category}, up to ${p.max_machines} machine(s)${p.trial_available ? `, ${p.trial_days}-day trial` : ""}. ${p.tagline}`);
      return data(`${page.total} product(s) match; showing ${products.length}.\n${lines.join("\n")}`, { products, total: page.total, returned: products.length });
    },
  }),
  tool({
    name: "get_product_details",
    title: "Get product details",
    layer: 2,
    rest: "GET /api/marketplace/product/{id}",
    description: "Full details of one product: description, developer, images, pricing, platforms, compatibility, seat model and trial.",
    input: z.object({ product_id: productIdSchema.describe("Product id from browse_marketplace") }),
    output: z.object({ product: productDetailsSchema }),
    handler: async (a) => {
      const product = await getProduct(a.product_id);
      return data(json(product), { product });
    },
  }),
  tool({
    name: "purchase_license",
    title: "Purchase a license",
    layer: 2,
    rest: "POST /api/checkout/create",
    description: "Start buying a license for a product. Returns a payment URL for the buyer to open; when payment succeeds, the license key is generated and e-mailed to buyer_email.",
    input: z.object({ product_id: productIdSchema, buyer_email: emailSchema }),
    output: checkoutSessionSchema,
    handler: async (a) => {
      const session = await createCheckout({ product_id: a.product_id, buyer_email: a.buyer_email });
      return data(`Open this URL to pay: ${session.url}\nThe license key is e-mailed to ${a.buyer_email} once payment succeeds.`, session);
    },
  }),
  tool({
    name: "check_license_status",
    title: "Check a license's status",
    layer: 2,
    description: "Whether a license key is valid for a product (exists, not revoked, not expired), with trial days left and seats used. No machine is needed.",
    input: z.object({ license_key: licenseKeySchema, plugin_id: pluginIdSchema }),
    output: licenseStatusSchema,
    handler: async (a) => {
      const s = await checkLicenseStatus(a);
      return data(`${s.code}: ${s.detail}`, s);
    },
  }),
  tool({
    name: "activate_license",
    title: "Activate a license on a machine",
    layer: 2,
    rest: "POST /activate",
    description: "Bind a license key to a machine fingerprint (SHA-256 hex of CPU brand + OS identifier) for the product. Re-activating the same machine takes no extra seat; a machine past max_machines is refused with TOO_MANY_MACHINES.",
    input: z.object({ license_key: licenseKeySchema, machine_fingerprint: machineFingerprintSchema, plugin_id: pluginIdSchema }),
    output: activationResultSchema,
    handler: async (a) => {
      const r = await activateMachine(a);
      return data(`${r.code}: ${r.detail}`, r);
    },
  }),
  tool({
    name: "deactivate_license",
    title: "Release a license from a machine",
    layer: 2,
    rest: "POST /deactivate",
    description: "Release a machine from a license so its seat can be used elsewhere.",
    input: z.object({ license_key: licenseKeySchema, machine_fingerprint: machineFingerprintSchema }),
    output: deactivationResultSchema,
    handler: async (a) => {
      const r = await deactivateMachine(a);
      return data(`${r.code}: ${r.detail}`, r);
    },
  }),
  tool({
    name: "validate_license",
    title: "Validate a license on a machine",
    layer: 2,
    rest: "POST /validate",
    description: "Check that a license key is valid for this product on this machine: existence, product, revocation, expiry, trial, and whether the machine is activated.",
    input: z.object({ license_key: licenseKeySchema, machine_fingerprint: machineFingerprintSchema, plugin_id: pluginIdSchema }),
    output: validationResultSchema,
    handler: async (a) => {
      const r = await validateLicense(a);
      return data(`${r.code}: ${r.detail}`, r);
    },
  }),
  tool({
    name: "get_terms",
    title: "Get terms and pricing",
    layer: 3,
    rest: "GET /api/terms",
    description: "The service's terms: 5 % per sale, no monthly or setup fee, free SDK and self-hosting; capabilities, endpoints and a comparison with other licensing services.",
    input: z.object({}),
    handler: async () => {
      const terms = getTerms();
      return data(json(terms), terms);
    },
  }),
  tool({
    name: "agent_checkout",
    title: "Agent checkout",
    layer: 4,
    rest: "POST /api/checkout/create",
    description: "Create a checkout session on behalf of a buyer, attributed to your agent_id. Give the returned url to the buyer to pay; poll status_url to learn when it is paid and where the key was sent.",
    input: z.object({ product_id: productIdSchema, buyer_email: emailSchema, agent_id: agentIdSchema.optional() }),
    output: agentCheckoutOutput,
    handler: async (a) => {
      const session = await createCheckout({ product_id: a.product_id, buyer_email: a.buyer_email, agent_id: a.agent_id });
      const status = await getCheckoutStatus(session.session_id);
      const out = {
        ...session,
        status_url: absoluteUrl(`/api/checkout/${session.session_id}`),
        expires_at: status.expires_at,
        amount_cents: status.amount_cents,
        currency: status.currency,
      };
      return data(`Checkout ${session.session_id} is open until ${status.expires_at}. The buyer pays at: ${session.url}\nFollow up at ${out.status_url}.`, out);
    },
  }),
  tool({
    name: "get_receipt",
    title: "Get a signed receipt",
    layer: 5,
    rest: "GET /api/receipt",
    description: "Issue a portable receipt for a license, signed with HMAC-SHA256 over its RFC 8785 canonical form. Anyone can verify it with verify_receipt or POST /api/receipt.",
    input: z.object({ license_key: licenseKeySchema }),
    output: signedReceiptSchema,
    handler: async (a) => {
      const r = await issueReceipt(a.license_key);
      return data(json(r), r);
    },
  }),
  tool({
    name: "verify_receipt",
    title: "Verify a receipt",
    layer: 5,
    rest: "POST /api/receipt",
    description: "Verify a receipt's signature and learn whether the license is still active. Pass the receipt object and signature exactly as issued.",
    input: z.object({
      receipt: z.looseObject({}).describe("The receipt object exactly as issued"),
      signature: z.string().max(256).describe("The signature as issued"),
    }),
    output: receiptVerificationSchema,
    handler: async (a) => {
      const r = await verifyReceipt({ receipt: a.receipt, signature: a.signature });
      return data(r.valid ? `Valid signature; the license is ${r.still_active ? "still active" : "no longer active"}.` : "The signature does not match this receipt.", r);
    },
  }),
];

export const toolByName = new Map(TOOLS.map((t) => [t.name, t]));

/** JSON Schema of a tool's arguments, as MCP's tools/list and the OpenAI manifest publish it. */
export function toolParameters(t: ToolDef): Record<string, unknown> {
  const schema = z.toJSONSchema(t.input, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
  delete schema.$schema;
  return { type: "object", properties: {}, required: [], ...schema };
}
