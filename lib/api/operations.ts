import { z } from "zod";
import { checkoutSessionSchema, checkoutStatusSchema, createCheckoutRequestSchema, sessionParamsSchema } from "../checkout/schemas.ts";
import {
  activateRequestSchema,
  activationResultSchema,
  deactivateRequestSchema,
  deactivationResultSchema,
  validateRequestSchema,
  validationResultSchema,
} from "../licensing/schemas.ts";
import { startTrialRequestSchema, trialResultSchema } from "../licensing/trial-schemas.ts";
import {
  catalogQuerySchema,
  categoriesResponseSchema,
  listingsQuerySchema,
  listingsResponseSchema,
  productDetailsSchema,
  productParamsSchema,
} from "../marketplace/schemas.ts";
import { receiptQuerySchema, receiptVerificationSchema, signedReceiptSchema, verifyReceiptRequestSchema } from "../receipts/schemas.ts";
import { licenseFileQuerySchema } from "../verifiable/license-file.ts";
import {
  catalogResponseSchema,
  didDocumentSchema,
  discoverySchema,
  healthSchema,
  termsSchema,
  toolManifestSchema,
  webhookAckSchema,
} from "./doc-schemas.ts";

/** One REST operation: the same zod schemas the route validates with, so the description cannot drift from the code. */
export interface Operation {
  method: "get" | "post";
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: "Marketplace" | "Licensing" | "Receipts" | "Checkout" | "Agents" | "Service";
  query?: z.ZodObject;
  params?: z.ZodObject;
  body?: z.ZodType;
  response: z.ZodType;
  contentType?: string;
  /** Error statuses the operation can answer besides 400, 413, 415 (for bodies), 500 and 503. */
  errors?: number[];
  /** Operations that mirror an MCP tool. */
  tool?: string;
}

export const OPERATIONS: Operation[] = [
  { method: "get", path: "/health", operationId: "getHealth", summary: "Health check", tag: "Service", response: healthSchema },
  {
    method: "get",
    path: "/api/marketplace/listings",
    operationId: "listListings",
    summary: "Browse listings",
    description: "Listed products, filtered by category and search words, sorted and paged (limit defaults to 20, at most 50).",
    tag: "Marketplace",
    query: listingsQuerySchema,
    response: listingsResponseSchema,
    tool: "browse_marketplace",
  },
  {
    method: "get",
    path: "/api/marketplace/product/{id}",
    operationId: "getProduct",
    summary: "Product details",
    description: "One listed product with developer info, images and pricing. Unknown and unlisted products are 404.",
    tag: "Marketplace",
    params: productParamsSchema,
    response: z.object({ product: productDetailsSchema }),
    errors: [404],
    tool: "get_product_details",
  },
  {
    method: "get",
    path: "/api/marketplace/categories",
    operationId: "listCategories",
    summary: "Categories with counts",
    tag: "Marketplace",
    response: categoriesResponseSchema,
  },
  {
    method: "get",
    path: "/api/catalog",
    operationId: "getCatalog",
    summary: "Product catalog with capability metadata",
    description: "20 products a page; follow `_links.next` until it is null.",
    tag: "Agents",
    query: catalogQuerySchema,
    response: catalogResponseSchema,
  },
  { method: "get", path: "/api/terms", operationId: "getTerms", summary: "Terms and pricing", tag: "Service", response: termsSchema, tool: "get_terms" },
  {
    method: "post",
    path: "/validate",
    operationId: "validateLicense",
    summary: "Validate a license key on a machine",
    description: "Checks key, product, revocation, expiry, trial and whether this machine is activated. `code` gives the reason.",
    tag: "Licensing",
    body: validateRequestSchema,
    response: validationResultSchema,
    errors: [429],
    tool: "validate_license",
  },
  {
    method: "post",
    path: "/activate",
    operationId: "activateLicense",
    summary: "Activate a license on a machine",
    description: "Binds the key to the machine fingerprint; idempotent per machine; refuses past max_machines with TOO_MANY_MACHINES.",
    tag: "Licensing",
    body: activateRequestSchema,
    response: activationResultSchema,
    errors: [429],
    tool: "activate_license",
  },
  {
    method: "post",
    path: "/deactivate",
    operationId: "deactivateLicense",
    summary: "Release a license from a machine",
    tag: "Licensing",
    body: deactivateRequestSchema,
    response: deactivationResultSchema,
    errors: [429],
    tool: "deactivate_license",
  },
  {
    method: "post",
    path: "/api/trials",
    operationId: "startTrial",
    summary: "Start a trial",
    description: "A time-limited trial key for a product that offers one; one trial per e-mail address and product.",
    tag: "Licensing",
    body: startTrialRequestSchema,
    response: trialResultSchema,
    errors: [404, 409, 429],
  },
  {
    method: "get",
    path: "/api/receipt",
    operationId: "getReceipt",
    summary: "Issue a signed receipt",
    tag: "Receipts",
    query: receiptQuerySchema,
    response: signedReceiptSchema,
    errors: [404, 429],
    tool: "get_receipt",
  },
  {
    method: "post",
    path: "/api/receipt",
    operationId: "verifyReceipt",
    summary: "Verify a signed receipt",
    description: "No credentials needed. `valid` is the signature check; `still_active` whether the license is active now.",
    tag: "Receipts",
    body: verifyReceiptRequestSchema,
    response: receiptVerificationSchema,
    tool: "verify_receipt",
  },
  {
    method: "get",
    path: "/api/license-file",
    operationId: "getLicenseFile",
    summary: "Signed offline license file for an activated machine",
    description:
      "Format ilm-license-file/1: armoured `format`, `key-id`, `payload` (base64url of canonical JSON) and `signature` (Ed25519 over \"ilm-license-file/1.\" + payload) lines. Verify offline with the key in /.well-known/did.json; valid until the payload's `expires_at`.",
    tag: "Licensing",
    query: licenseFileQuerySchema,
    response: z.string(),
    contentType: "text/plain",
    errors: [404, 409, 429],
  },
  {
    method: "get",
    path: "/api/receipt/credential",
    operationId: "getLicenseCredential",
    summary: "The receipt as a W3C Verifiable Credential (vc+jwt)",
    description: "VC Data Model 2.0 secured with JOSE (EdDSA, `kid` naming the DID verification method), with a Bitstring Status List entry for revocation. POST it to /api/receipt as `{credential}` to verify.",
    tag: "Receipts",
    query: receiptQuerySchema,
    response: z.string(),
    contentType: "application/vc+jwt",
    errors: [404, 429],
  },
  {
    method: "get",
    path: "/api/status/revocation",
    operationId: "getRevocationStatusList",
    summary: "Revocation status list (Bitstring Status List credential, vc+jwt)",
    tag: "Receipts",
    response: z.string(),
    contentType: "application/vc+jwt",
  },
  {
    method: "post",
    path: "/api/checkout/create",
    operationId: "createCheckout",
    summary: "Create a checkout session",
    description: "Open `url` to pay. On successful payment a key is generated and e-mailed to `buyer_email`.",
    tag: "Checkout",
    body: createCheckoutRequestSchema,
    response: checkoutSessionSchema,
    errors: [404, 429, 502],
    tool: "agent_checkout",
  },
  {
    method: "get",
    path: "/api/checkout/{session_id}",
    operationId: "getCheckoutStatus",
    summary: "Checkout session status",
    description: "For the agent or app that created a checkout: its status and, once paid, the key and where it was e-mailed.",
    tag: "Checkout",
    params: sessionParamsSchema,
    response: checkoutStatusSchema,
    errors: [404],
  },
  {
    method: "post",
    path: "/api/webhooks/stripe",
    operationId: "stripeWebhook",
    summary: "Stripe webhook",
    description: "Stripe's event deliveries, verified on the raw body with the `Stripe-Signature` header; each event is applied once.",
    tag: "Checkout",
    body: z.looseObject({ id: z.string(), type: z.string() }),
    response: webhookAckSchema,
    errors: [404],
  },
  {
    method: "get",
    path: "/.well-known/did.json",
    operationId: "getDidDocument",
    summary: "DID document",
    description: "The service's did:web identity with its Ed25519 verification method.",
    tag: "Receipts",
    response: didDocumentSchema,
    contentType: "application/did+json",
  },
  { method: "get", path: "/api/discover", operationId: "getDiscovery", summary: "Discovery payload", tag: "Agents", response: discoverySchema },
  { method: "get", path: "/api/tools", operationId: "getToolManifest", summary: "Tool manifest (OpenAI function format)", tag: "Agents", response: toolManifestSchema },
];
