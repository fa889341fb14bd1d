import { env } from "../env.ts";
import { FEE_TERMS, platformFeeCents, PRICING } from "../pricing.ts";
import { SERVICE_NAME, VERSIONS } from "../versions.ts";
import { absoluteUrl, paths } from "../urls.ts";
import { CATEGORIES } from "../marketplace/constants.ts";

/**
 * How we compare with the licensing products developers usually weigh us against. Vendor facts are from their
 * public pricing and API documentation at `as_of`; fees change, so each row says where to check.
 */
const COMPARISON = [
  {
    product: SERVICE_NAME,
    kind: "marketplace + licensing API, self-hostable",
    fees: `${PRICING.transaction_fee_percent}% per sale, no monthly fee, no per-transaction fixed fee; free when self-hosted`,
    machine_binding: "yes: SHA-256 machine fingerprints, per-product seat limit, idempotent re-activation",
    self_service_release: "yes: buyers release machines themselves; apps call /deactivate",
    offline_validation: "yes: signed receipts, verifiable without contacting the seller",
    agent_interface: "REST, MCP server, OpenAI tool manifest, discovery documents",
    self_hosting: "yes, MIT-licensed, SQLite or PostgreSQL",
    marketplace: "yes",
    source: absoluteUrl("/"),
  },
  {
    product: "Keygen",
    kind: "licensing API (no storefront or payments)",
    fees: "monthly subscription tiers on Keygen Cloud; self-hosted Community Edition under a source-available license",
    machine_binding: "yes: machines with fingerprints, per-policy limits, many validation codes",
    self_service_release: "through the API; no buyer-facing portal of its own",
    offline_validation: "yes: Ed25519-signed license files",
    agent_interface: "REST API",
    self_hosting: "yes (Community Edition)",
    marketplace: "no: pair it with a separate payment provider",
    source: "https://keygen.sh/pricing/",
  },
  {
    product: "Lemon Squeezy",
    kind: "merchant of record with license keys",
    fees: "5% + 50¢ per transaction, extra fees for some payment methods and international sales",
    machine_binding: "activation limit per key by instance name; no hardware fingerprint concept",
    self_service_release: "no buyer self-service; the seller or the app must deactivate an instance",
    offline_validation: "no signed offline artefact",
    agent_interface: "REST API",
    self_hosting: "no",
    marketplace: "storefront pages per seller, no shared marketplace",
    source: "https://www.lemonsqueezy.com/pricing",
  },
  {
    product: "Gumroad",
    kind: "creator storefront with license keys",
    fees: "10% + 50¢ per direct sale, more through the Gumroad Discover marketplace",
    machine_binding: "no: a license key has a use counter, not machine activations",
    self_service_release: "no",
    offline_validation: "no",
    agent_interface: "REST API",
    self_hosting: "no",
    marketplace: "yes (Discover)",
    source: "https://gumroad.com/pricing",
  },
] as const;

/** The terms document: pricing, what the service does and where, and how it compares. */
export function getTerms() {
  const e = env();
  return {
    provider: SERVICE_NAME,
    issuer: e.BASE_URL,
    version: VERSIONS.api,
    pricing: {
      model: PRICING.model,
      transaction_fee_percent: PRICING.transaction_fee_percent,
      monthly_fee_cents: PRICING.monthly_fee * 100,
      setup_fee_cents: PRICING.setup_fee * 100,
      sdk_cost: PRICING.sdk,
      self_host_cost: PRICING.self_hosting,
      currency: PRICING.currency,
      fee_example: {
        price_cents: 4900,
        platform_fee_cents: platformFeeCents(4900),
        seller_receives_cents: 4900 - platformFeeCents(4900),
        note: `${FEE_TERMS.platform} ${FEE_TERMS.processor} ${FEE_TERMS.testMode}`,
      },
    },
    capabilities: {
      license_keys: "XXXX-XXXX-XXXX-XXXX keys from a CSPRNG, one product each",
      machine_binding: "activate, validate and deactivate per SHA-256 machine fingerprint, up to max_machines seats",
      trials: "time-limited trial licenses for products that offer them",
      revocation: "a seller can revoke a license; validation and receipt checks then report it inactive",
      receipts: "portable receipts signed with HMAC-SHA256 over the RFC 8785 canonical form; anyone can verify them here",
      identity: "did:web identity with an Ed25519 key",
      checkout: "hosted checkout sessions (Stripe, or a built-in test mode); the key is e-mailed on payment",
      agents: "every operation as REST, as MCP tools and in an OpenAI-format tool manifest; no API key needed",
      categories: [...CATEGORIES],
      authentication: "none: license keys, fingerprints and product ids are request data, not credentials",
    },
    endpoints: {
      catalog: absoluteUrl(paths.catalog),
      listings: absoluteUrl("/api/marketplace/listings"),
      product: absoluteUrl("/api/marketplace/product/{id}"),
      categories: absoluteUrl("/api/marketplace/categories"),
      checkout: absoluteUrl("/api/checkout/create"),
      validate: absoluteUrl("/validate"),
      activate: absoluteUrl("/activate"),
      deactivate: absoluteUrl("/deactivate"),
      receipt: absoluteUrl("/api/receipt"),
      terms: absoluteUrl(paths.terms),
      discover: absoluteUrl(paths.discover),
      tools: absoluteUrl(paths.tools),
      mcp: absoluteUrl(paths.mcp),
      openapi: absoluteUrl(paths.openapi),
      did: absoluteUrl("/.well-known/did.json"),
      health: absoluteUrl("/health"),
    },
    comparison: COMPARISON.map((row) => ({ ...row, as_of: "2026-11" })),
  };
}
