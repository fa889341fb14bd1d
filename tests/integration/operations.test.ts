import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { createSession } from "@/lib/acp/checkout-sessions";
import { delegatePayment, delegatePaymentRequestSchema } from "@/lib/acp/delegate-payment";
import { registerAgentPlatform } from "@/lib/acp/platforms";
import { toolByName, tools } from "@/lib/agents/tools";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { approveWithLicense } from "@/lib/device/approve-device";
import { startDeviceAuthorization } from "@/lib/device/start-authorization";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { advanceTestClock, cancelSubscriptionAs } from "@/lib/subscriptions/manage";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { buyerCookie, SELLER_TRUST, sellerCookie, sellingDeveloper } from "../helpers/sellers";
import { createProduct } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { MCP_MAX_BATCH } from "@/lib/transports/mcp-transport";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { productInputSchema } from "@/lib/marketplace/schemas";
import type { Operation } from "@/lib/operations/define";
import { execute, parseParts } from "@/lib/operations/execute";
import { restRoutes } from "@/lib/transports/rest";
import { operations } from "@/lib/operations/index";
import { ingestArtifact } from "@/lib/releases/ingest";
import { createRelease, publishRelease } from "@/lib/releases/manage";
import { resetObjectStore } from "@/lib/storage/index";
import { createSellerToken } from "@/lib/seller-api/tokens";
import { call } from "../helpers/http";
import { startLeanServer } from "../helpers/lean-server";
import { startStripeStub } from "../helpers/stripe-stub";
import { fingerprint, newLicense } from "../helpers/licenses";
import { feedToken } from "@/lib/updates/feed-token";
import { issueLicense } from "@/lib/licensing/issue-license";
import { submitReview } from "@/lib/reviews/submit-review";
import { hideReview } from "@/lib/reviews/respond";
import { addProductMedia } from "@/lib/media/manage";
import { startTransfer } from "@/lib/transfers/transfer-license";

/**
 * Walks the operation registry: every operation answers a live success that matches its declared output schema and
 * a live error that is a problem document with a status it declares, on every transport it is offered on (REST,
 * server.ts's lean path, MCP). A new operation without an example here fails the first test.
 */

const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.string().regex(/^[a-z][a-z0-9_]*$/),
  instance: z.string().optional(),
  request_id: z.string().optional(),
  errors: z.array(z.object({ in: z.string(), name: z.string(), message: z.string() })).optional(),
});

const acpErrorSchema = z.strictObject({
  type: z.enum(["invalid_request", "rate_limit_exceeded", "processing_error", "service_unavailable"]),
  code: z.string().regex(/^[a-z][a-z0-9_]*$/),
  message: z.string(),
  param: z.string().optional(),
  supported_versions: z.array(z.string()).optional(),
});

interface Call {
  query?: Record<string, string>;
  params?: Record<string, string>;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  method?: string;
  /** Settings in force for this call only. */
  env?: Record<string, string>;
}
interface Example {
  ok: () => Call;
  error: () => Call & { status: number };
}

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const SECRET = "whsec_registry_walk";
const signer = new Stripe("sk_test_unused");
const STRIPE_ON = { STRIPE_SECRET_KEY: "sk_test_registry_walk", STRIPE_WEBHOOK_SECRET: SECRET };
const saved = { ...process.env };
let lean: Awaited<ReturnType<typeof startLeanServer>>;
const fx = {
  productId: "",
  pluginId: "",
  key: "",
  machine: fingerprint(`walk-${run}`),
  session: "",
  cookie: "",
  sellerProduct: "",
  trialProductId: "",
};

const productBody = (name: string, pluginId: string, fields: Record<string, unknown> = {}) => ({
  ...fields,
  name,
  tagline: "A product made by the registry walk.",
  description: "A product created by the operation registry test, with a long enough description.",
  plugin_id: pluginId,
  price_cents: 1500,
  category: "dev-tools",
  max_machines: 2,
  seat_model: "per-machine",
  platforms: ["linux"],
  download_url: "https://example.com/download.zip",
  icon_url: "/icons/tape-warmth.svg",
});

// Payouts: a second seller whose payout account is a Stripe one (the stand-in answers the Express login link).
const payoutFx = { cookie: "", base: "" };
let payoutStub: Awaited<ReturnType<typeof startStripeStub>> | undefined;
beforeAll(async () => {
  payoutStub = await startStripeStub({
    routes: {
      "POST /v1/accounts/": () => ({ body: { object: "login_link", created: 1, url: "https://connect.stripe.com/express/acct_walk/x" } }),
      "POST /v1/billing_portal/sessions": () => ({ body: { object: "billing_portal.session", url: "https://billing.stripe.com/p/session/walk" } }),
    },
  });
  payoutFx.base = payoutStub.base;
  const email = `walk-payouts-${run}@example.com`;
  const dev = await createDeveloperProfile(email, { ...SELLER_TRUST, name: `Walk Payouts ${run}`, website: null, bio: "" });
  await getDb().payoutAccount.create({
    data: {
      id: `acct_walk${run}`,
      developerId: dev.id,
      provider: "stripe",
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
    },
  });
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  payoutFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
afterAll(async () => {
  await payoutStub?.close();
});

// Orders and refunds: a seller with a paid test-mode order of their own product (the walk's other seller gets 404).
const ordersFx = { cookie: "", order: "" };
beforeAll(async () => {
  const email = `walk-orders-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Orders ${run}`, website: null, bio: "" });
  const product = await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Orders ${run}`, `com.walk.orders${run}`)), {
    publish: true,
  });
  ordersFx.order = (await createCheckout({ product_id: product.id, buyer_email: `walk-buyer-${run}@example.com` })).session_id;
  await payTestCheckout(ordersFx.order);
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  ordersFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
const ORDERS_EXAMPLES: Record<string, Example> = {
  listOrders: {
    ok: () => ({ headers: { cookie: ordersFx.cookie }, query: { q: "walk-buyer", page: "1" } }),
    error: () => ({ query: { q: "walk-buyer" }, status: 401 }),
  },
  getOrder: {
    ok: () => ({ headers: { cookie: ordersFx.cookie }, params: { id: ordersFx.order } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: ordersFx.order }, status: 404 }),
  },
  refundOrder: {
    ok: () => ({ headers: { cookie: ordersFx.cookie }, params: { id: ordersFx.order }, body: { amount_cents: 10, reason: "Registry walk" } }),
    error: () => ({
      headers: { cookie: ordersFx.cookie },
      params: { id: ordersFx.order },
      body: { amount_cents: 999_999, reason: "Too much" },
      status: 409,
    }),
  },
};

// Checkout pricing and coupons: a seller with one coupon of their own; a coupon of another seller is a 404.
const couponsFx = { cookie: "", coupon: "", otherCoupon: "", n: 0 };
beforeAll(async () => {
  const email = `walk-coupons-${run}@example.com`;
  const dev = await createDeveloperProfile(email, { ...SELLER_TRUST, name: `Walk Coupons ${run}`, website: null, bio: "" });
  const stranger = await createDeveloperProfile(`walk-coupons-other-${run}@example.com`, {
    ...SELLER_TRUST,
    name: `Walk Coupons Other ${run}`,
    website: null,
    bio: "",
  });
  const coupon = (developerId: string) =>
    getDb().coupon.create({ data: { developerId, code: `WALK${run}`.toUpperCase(), kind: "percent", percentOff: 10, productIds: [] } });
  couponsFx.coupon = (await coupon(dev.id)).id;
  couponsFx.otherCoupon = (await coupon(stranger.id)).id;
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  couponsFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
const COUPONS_EXAMPLES: Record<string, Example> = {
  quoteCheckout: {
    ok: () => ({ body: { product_id: fx.productId, quantity: 1 } }),
    error: () => ({ body: { product_id: "no-such-product" }, status: 404 }),
  },
  listCoupons: { ok: () => ({ headers: { cookie: couponsFx.cookie } }), error: () => ({ status: 401 }) },
  createCoupon: {
    // A fresh code per call: a code the seller already has is a 409.
    ok: () => ({ headers: { cookie: couponsFx.cookie }, body: { code: `W${++couponsFx.n}-${run}`, kind: "percent", percent_off: 15 } }),
    error: () => ({ headers: { cookie: couponsFx.cookie }, body: { code: `WALK${run}`, kind: "percent", percent_off: 15 }, status: 409 }),
  },
  deactivateCoupon: {
    ok: () => ({ headers: { cookie: couponsFx.cookie }, params: { id: couponsFx.coupon } }),
    error: () => ({ headers: { cookie: couponsFx.cookie }, params: { id: couponsFx.otherCoupon }, status: 404 }),
  },
};

// API tokens: a seller with a token of their own (revoked by the walk; revoking is idempotent), another seller's
// token (a 404 to revoke), and the seller's token itself (managing tokens needs the session: 403).
const tokensFx = { cookie: "", token: "", otherToken: "", bearer: "" };
beforeAll(async () => {
  const email = `walk-tokens-${run}@example.com`;
  const dev = await createDeveloperProfile(email, { ...SELLER_TRUST, name: `Walk Tokens ${run}`, website: null, bio: "" });
  const stranger = await createDeveloperProfile(`walk-tokens-other-${run}@example.com`, {
    ...SELLER_TRUST,
    name: `Walk Tokens Other ${run}`,
    website: null,
    bio: "",
  });
  const own = await createSellerToken(dev.id, email, { name: "Walk", scopes: ["read"] });
  tokensFx.token = own.id;
  tokensFx.bearer = own.token;
  tokensFx.otherToken = (await createSellerToken(stranger.id, "walk", { name: "Walk other", scopes: ["read"] })).id;
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  tokensFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
const TOKENS_EXAMPLES: Record<string, Example> = {
  listSellerTokens: {
    ok: () => ({ headers: { cookie: tokensFx.cookie } }),
    error: () => ({ headers: { authorization: `Bearer ${tokensFx.bearer}` }, status: 403 }),
  },
  createSellerToken: {
    ok: () => ({ headers: { cookie: tokensFx.cookie }, body: { name: "Walk CI", scopes: ["read", "releases"], expires_in_days: 30 } }),
    error: () => ({ headers: { cookie: tokensFx.cookie }, body: { name: "Walk CI", scopes: ["everything"] }, status: 400 }),
  },
  revokeSellerToken: {
    ok: () => ({ headers: { cookie: tokensFx.cookie }, params: { id: tokensFx.token } }),
    error: () => ({ headers: { cookie: tokensFx.cookie }, params: { id: tokensFx.otherToken }, status: 404 }),
  },
};

// Webhooks: a seller (by API token) with endpoints to change and delete, sent deliveries to redeliver (each call
// takes a fresh one: a queued delivery is a 409), and another seller's endpoint and delivery (404s). Targets are a
// public address literal (no DNS); nothing is sent: the walk's deliveries are removed before the database is closed.
const hooksFx = { bearer: "", endpoint: "", otherEndpoint: "", delivery: "", otherDelivery: "", spare: [] as string[], sent: [] as string[] };
beforeAll(async () => {
  const dev = await createDeveloperProfile(`walk-hooks-${run}@example.com`, { ...SELLER_TRUST, name: `Walk Hooks ${run}`, website: null, bio: "" });
  const stranger = await createDeveloperProfile(`walk-hooks-other-${run}@example.com`, {
    ...SELLER_TRUST,
    name: `Walk Hooks Other ${run}`,
    website: null,
    bio: "",
  });
  hooksFx.bearer = (await createSellerToken(dev.id, "walk", { name: "Walk hooks", scopes: ["webhooks"] })).token;
  const endpoint = (developerId: string) =>
    getDb().sellerWebhookEndpoint.create({
      data: {
        id: `we_walk${randomUUID().replace(/-/g, "").slice(0, 16)}`,
        developerId,
        url: "https://93.184.216.34/walk",
        secret: "whsec_d2Fsaw==",
        events: [],
      },
    });
  const delivery = (targetId: string) =>
    getDb().webhookDelivery.create({
      data: {
        id: `msg_walk${randomUUID().replace(/-/g, "").slice(0, 16)}`,
        kind: "seller",
        targetId,
        url: "https://93.184.216.34/walk",
        eventType: "webhook.test",
        payload: "{}",
        status: "sent",
        sentAt: new Date(),
      },
    });
  hooksFx.endpoint = (await endpoint(dev.id)).id;
  hooksFx.otherEndpoint = (await endpoint(stranger.id)).id;
  for (let i = 0; i < 4; i++) hooksFx.spare.push((await endpoint(dev.id)).id);
  for (let i = 0; i < 4; i++) hooksFx.sent.push((await delivery(hooksFx.endpoint)).id);
  hooksFx.delivery = (await delivery(hooksFx.endpoint)).id;
  hooksFx.otherDelivery = (await delivery(hooksFx.otherEndpoint)).id;
});
const hooks = (c: Omit<Call, "headers"> = {}) => ({ ...c, headers: { authorization: `Bearer ${hooksFx.bearer}` } });
const WEBHOOKS_EXAMPLES: Record<string, Example> = {
  listWebhookEndpoints: { ok: () => hooks(), error: () => ({ status: 401 }) },
  createWebhookEndpoint: {
    ok: () => hooks({ body: { url: "https://93.184.216.34/walk-new", events: ["order.paid"] } }),
    error: () => ({ ...hooks({ body: { url: "https://127.0.0.1/walk" } }), status: 400 }),
  },
  getWebhookEndpoint: {
    ok: () => hooks({ params: { id: hooksFx.endpoint } }),
    error: () => ({ ...hooks({ params: { id: hooksFx.otherEndpoint } }), status: 404 }),
  },
  updateWebhookEndpoint: {
    ok: () => hooks({ params: { id: hooksFx.endpoint }, body: { description: "Walk" } }),
    error: () => ({ ...hooks({ params: { id: hooksFx.otherEndpoint }, body: { enabled: false } }), status: 404 }),
  },
  deleteWebhookEndpoint: {
    ok: () => hooks({ params: { id: hooksFx.spare.pop() ?? "we_walkexhausted" } }),
    error: () => ({ ...hooks({ params: { id: hooksFx.otherEndpoint } }), status: 404 }),
  },
  rotateWebhookSecret: {
    ok: () => hooks({ params: { id: hooksFx.endpoint } }),
    error: () => ({ ...hooks({ params: { id: hooksFx.otherEndpoint } }), status: 404 }),
  },
  sendWebhookTestEvent: {
    ok: () => hooks({ params: { id: hooksFx.endpoint } }),
    error: () => ({ ...hooks({ params: { id: hooksFx.otherEndpoint } }), status: 404 }),
  },
  listEndpointDeliveries: {
    ok: () => hooks({ params: { id: hooksFx.endpoint }, query: { limit: "2" } }),
    error: () => ({ ...hooks({ params: { id: hooksFx.endpoint }, query: { limit: "0" } }), status: 400 }),
  },
  getWebhookDelivery: {
    ok: () => hooks({ params: { delivery_id: hooksFx.delivery } }),
    error: () => ({ ...hooks({ params: { delivery_id: hooksFx.otherDelivery } }), status: 404 }),
  },
  redeliverWebhook: {
    ok: () => hooks({ params: { delivery_id: hooksFx.sent.pop() ?? "msg_walkexhausted" } }),
    error: () => ({ ...hooks({ params: { delivery_id: hooksFx.otherDelivery } }), status: 404 }),
  },
};

// Seller licenses: a seller (by API token) with a license activated on machines to release (and restore: each ok
// call takes a fresh machine), a license to revoke and reinstate, and another seller's license (404s).
const licFx = { bearer: "", product: "", license: "", other: "", machines: [] as string[], released: [] as string[] };
beforeAll(async () => {
  const dev = await sellingDeveloper(`walk-licenses-${run}@example.com`, { name: `Walk Licenses ${run}`, website: null, bio: "" });
  const stranger = await sellingDeveloper(`walk-licenses-other-${run}@example.com`, { name: `Walk Licenses Other ${run}`, website: null, bio: "" });
  licFx.bearer = (await createSellerToken(dev.id, "walk", { name: "Walk licenses", scopes: ["licenses"] })).token;
  const product = await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Licenses ${run}`, `com.walk.lic${run}`)), { publish: true });
  const otherProduct = await createProduct(stranger.id, productInputSchema.parse(productBody(`Walk Licenses Other ${run}`, `com.walk.lico${run}`)), {
    publish: true,
  });
  licFx.product = product.id;
  const { license } = await newLicense({ productId: product.id, maxMachines: 10 });
  licFx.license = license.id;
  licFx.other = (await newLicense({ productId: otherProduct.id })).license.id;
  for (let i = 0; i < 6; i++) {
    await activateMachine({ license_key: license.key, machine_fingerprint: fingerprint(), plugin_id: product.pluginId });
  }
  licFx.machines = (await getDb().activation.findMany({ where: { licenseId: license.id }, select: { id: true } })).map((a) => a.id);
});
const lic = (c: Omit<Call, "headers"> = {}) => ({ ...c, headers: { authorization: `Bearer ${licFx.bearer}` } });
const LICENSES_EXAMPLES: Record<string, Example> = {
  listSellerLicenses: { ok: () => lic({ query: { q: "walk", limit: "5" } }), error: () => ({ ...lic({ query: { status: "lost" } }), status: 400 }) },
  getSellerLicense: { ok: () => lic({ params: { id: licFx.license } }), error: () => ({ ...lic({ params: { id: licFx.other } }), status: 404 }) },
  listLicenseEvents: {
    ok: () => lic({ params: { id: licFx.license }, query: { limit: "3" } }),
    error: () => ({ ...lic({ params: { id: licFx.other } }), status: 404 }),
  },
  issueComplimentaryLicense: {
    ok: () => ({ ...lic({ body: { product_id: licFx.product, buyer_email: `walk-gift-${randomUUID().slice(0, 8)}@example.com` } }) }),
    error: () => ({ ...lic({ body: { product_id: "no-such-product", buyer_email: `walk-gift-${run}@example.com` } }), status: 404 }),
  },
  revokeLicense: {
    ok: () => lic({ params: { id: licFx.license }, body: { reason: "Walk" } }),
    error: () => ({ ...lic({ params: { id: licFx.other }, body: {} }), status: 404 }),
  },
  reinstateLicense: { ok: () => lic({ params: { id: licFx.license } }), error: () => ({ ...lic({ params: { id: licFx.other } }), status: 404 }) },
  releaseMachine: {
    ok: () => {
      const machine = licFx.machines.pop() ?? "exhausted";
      licFx.released.push(machine);
      return lic({ params: { id: licFx.license, machine_id: machine } });
    },
    error: () => ({ ...lic({ params: { id: licFx.license, machine_id: "no-such-machine" } }), status: 404 }),
  },
  restoreMachine: {
    // The machine released last (restoring one that is back already answers restored: false).
    ok: () => lic({ params: { id: licFx.license, machine_id: licFx.released.at(-1) ?? licFx.machines[0] ?? "none" } }),
    error: () => ({ ...lic({ params: { id: licFx.other, machine_id: "no-such-machine" } }), status: 404 }),
  },
};

// The operator's console: ADMIN_EMAILS lists a walk address; a seller of its own with two listed products and a paid
// order to act on (suspend then reinstate, remove then restore, a small refund). Anyone else gets a 404 problem.
const adminFx = { cookie: "", seller: "", product: "", order: "", disputed: "", email: `walk-ops-${run}@example.com` };
beforeAll(async () => {
  process.env.ADMIN_EMAILS = adminFx.email;
  resetEnv();
  const dev = await sellingDeveloper(`walk-admin-seller-${run}@example.com`, { name: `Walk Admin ${run}`, website: null, bio: "" });
  adminFx.seller = dev.id;
  adminFx.product = (
    await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Admin ${run}`, `com.walk.admin${run}`)), { publish: true })
  ).id;
  adminFx.order = (await createCheckout({ product_id: adminFx.product, buyer_email: `walk-admin-buyer-${run}@example.com` })).session_id;
  await payTestCheckout(adminFx.order);
  adminFx.disputed = (await createCheckout({ product_id: adminFx.product, buyer_email: `walk-admin-bank-${run}@example.com` })).session_id;
  await payTestCheckout(adminFx.disputed);
  await requestSignIn({ email: adminFx.email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: adminFx.email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  adminFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
const asAdmin = (c: Omit<Call, "headers"> = {}): Call => ({ ...c, headers: { cookie: adminFx.cookie } });
const ADMIN_EXAMPLES: Record<string, Example> = {
  getAdminOverview: { ok: () => asAdmin(), error: () => ({ headers: { cookie: fx.cookie }, status: 404 }) },
  listAdminSellers: { ok: () => asAdmin({ query: { q: "walk admin", standing: "active" } }), error: () => ({ query: { q: "walk" }, status: 404 }) },
  getAdminSeller: {
    ok: () => asAdmin({ params: { id: adminFx.seller } }),
    error: () => ({ ...asAdmin({ params: { id: "no-such-seller" } }), status: 404 }),
  },
  suspendSeller: {
    ok: () => asAdmin({ params: { id: adminFx.seller }, body: { reason: "Registry walk" } }),
    error: () => ({ params: { id: adminFx.seller }, body: { reason: "Registry walk" }, status: 404 }),
  },
  reinstateSeller: {
    ok: () => asAdmin({ params: { id: adminFx.seller }, body: { note: "Registry walk" } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: adminFx.seller }, body: {}, status: 404 }),
  },
  listAdminProducts: {
    ok: () => asAdmin({ query: { q: "walk admin", status: "active", seller_id: adminFx.seller } }),
    error: () => ({ headers: { cookie: fx.cookie }, status: 404 }),
  },
  removeProduct: {
    ok: () => asAdmin({ params: { id: adminFx.product }, body: { reason: "Registry walk" } }),
    error: () => ({ params: { id: adminFx.product }, body: { reason: "Registry walk" }, status: 404 }),
  },
  restoreProduct: {
    ok: () => asAdmin({ params: { id: adminFx.product }, body: { note: "Registry walk" } }),
    error: () => ({ ...asAdmin({ params: { id: fx.productId }, body: {} }), status: 409 }),
  },
  // After restoreProduct: the listing is back, so it can be featured (then unfeatured); twice is a 409.
  featureProduct: {
    ok: () => asAdmin({ params: { id: adminFx.product } }),
    error: () => ({ ...asAdmin({ params: { id: adminFx.product } }), status: 409 }),
  },
  unfeatureProduct: {
    ok: () => asAdmin({ params: { id: adminFx.product } }),
    error: () => ({ ...asAdmin({ params: { id: adminFx.product } }), status: 409 }),
  },
  searchAdminOrders: { ok: () => asAdmin({ query: { q: "walk-admin-buyer", status: "paid" } }), error: () => ({ status: 404 }) },
  getAdminOrder: { ok: () => asAdmin({ params: { id: adminFx.order } }), error: () => ({ ...asAdmin({ params: { id: "cs_none" } }), status: 404 }) },
  refundOrderAsOperator: {
    ok: () => asAdmin({ params: { id: adminFx.order }, body: { amount_cents: 10, reason: "Registry walk" } }),
    error: () => ({ ...asAdmin({ params: { id: adminFx.order }, body: { amount_cents: 999_999, reason: "Too much" } }), status: 409 }),
  },
  simulateTestDispute: {
    ok: () => asAdmin({ params: { id: adminFx.disputed }, body: { step: "open" } }),
    error: () => ({ ...asAdmin({ params: { id: adminFx.order }, body: { step: "lost" } }), status: 409 }),
  },
  listPaymentEvents: { ok: () => asAdmin({ query: { type: "test.", order_id: adminFx.order } }), error: () => ({ status: 404 }) },
  listAuditEntries: {
    ok: () => asAdmin({ query: { action: "seller.suspend", target_id: adminFx.seller } }),
    error: () => ({ ...asAdmin({ query: { action: "seller.delete" } }), status: 400 }),
  },
};

// Reviews: a seller's product with bought licenses, each with a review (to reply to, to hide, one already hidden to
// show again), another seller's review (404 to reply), and a complimentary key (403: given, not bought).
const revFx = { product: "", key: "", gift: "", cookie: "", replyTo: [] as string[], toHide: [] as string[], hidden: [] as string[], foreign: "" };
beforeAll(async () => {
  const email = `walk-reviews-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Reviews ${run}`, website: null, bio: "" });
  const stranger = await sellingDeveloper(`walk-reviews-other-${run}@example.com`, { name: `Walk Reviews Other ${run}`, website: null, bio: "" });
  for (const d of [dev, stranger])
    await getDb().developer.update({ where: { id: d.id }, data: { refundPolicy: "Refunds within 14 days.", supportEmail: email } });
  revFx.product = (
    await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Reviews ${run}`, `com.walk.rev${run}`)), { publish: true })
  ).id;
  const otherProduct = (
    await createProduct(stranger.id, productInputSchema.parse(productBody(`Walk Reviews Other ${run}`, `com.walk.revo${run}`)), { publish: true })
  ).id;
  const bought = (productId: string) =>
    issueLicense(getDb(), { productId, buyerEmail: `walk-reviewer-${randomUUID().slice(0, 8)}@example.com`, maxMachines: 1, source: "purchase" });
  const review = async (productId: string) =>
    (await submitReview({ key: (await bought(productId)).key }, { rating: 4, title: "Walk", body: "" })).review.id;
  revFx.key = (await bought(revFx.product)).key;
  revFx.gift = (
    await issueLicense(getDb(), { productId: revFx.product, buyerEmail: `walk-gift-${run}@example.com`, maxMachines: 1, source: "complimentary" })
  ).key;
  for (let i = 0; i < 3; i++) revFx.replyTo.push(await review(revFx.product));
  for (let i = 0; i < 3; i++) revFx.toHide.push(await review(revFx.product));
  for (let i = 0; i < 3; i++) {
    const id = await review(revFx.product);
    await hideReview({ email: adminFx.email }, id, "Registry walk");
    revFx.hidden.push(id);
  }
  revFx.foreign = await review(otherProduct);
  revFx.cookie = await sellerCookie(email);
});
const REVIEWS_EXAMPLES: Record<string, Example> = {
  listProductReviews: {
    ok: () => ({ params: { id: revFx.product }, query: { sort: "highest", limit: "2" } }),
    error: () => ({ params: { id: "no-such-product" }, status: 404 }),
  },
  submitReview: {
    ok: () => ({
      params: { id: revFx.product },
      body: { license_key: revFx.key, rating: 5, title: "Walk review", body: "Fine.", author_name: "Walker" },
    }),
    error: () => ({ params: { id: revFx.product }, body: { license_key: revFx.gift, rating: 5 }, status: 403 }),
  },
  listSellerReviews: {
    ok: () => ({ headers: { cookie: revFx.cookie }, query: { product_id: revFx.product, unreplied: "true" } }),
    error: () => ({ query: { unreplied: "true" }, status: 401 }),
  },
  replyToReview: {
    ok: () => ({ headers: { cookie: revFx.cookie }, params: { id: take(revFx.replyTo) }, body: { reply: "Thank you." } }),
    error: () => ({ headers: { cookie: revFx.cookie }, params: { id: revFx.foreign }, body: { reply: "Not mine." }, status: 404 }),
  },
  listAdminReviews: {
    ok: () => asAdmin({ query: { q: "walk", status: "visible", limit: "5" } }),
    error: () => ({ query: { q: "walk" }, status: 404 }),
  },
  hideReview: {
    ok: () => asAdmin({ params: { id: take(revFx.toHide) }, body: { reason: "Registry walk" } }),
    error: () => ({ ...asAdmin({ params: { id: revFx.hidden[0] ?? "none" }, body: { reason: "Registry walk" } }), status: 409 }),
  },
  unhideReview: {
    ok: () => asAdmin({ params: { id: take(revFx.hidden) }, body: { note: "Registry walk" } }),
    error: () => ({ ...asAdmin({ params: { id: "no-such-review" }, body: {} }), status: 404 }),
  },
};

// Agent platforms (the operator's): one platform to manage, one to revoke, and a failed webhook delivery to send again.
const agentFx = { managed: "", revocable: "", delivery: "", key: "" };
beforeAll(async () => {
  const operator = { email: adminFx.email };
  const managed = await registerAgentPlatform(operator, { name: `Walk Agent ${run}`, webhook_url: "https://agent.example.com/hooks" });
  agentFx.managed = managed.platform.id;
  agentFx.key = managed.api_key;
  agentFx.revocable = (await registerAgentPlatform(operator, { name: `Walk Agent Revoked ${run}` })).platform.id;
  agentFx.delivery = (
    await getDb().webhookDelivery.create({
      data: {
        kind: "acp_order",
        targetId: agentFx.managed,
        url: "https://agent.example.com/hooks",
        eventType: "order_create",
        payload: "{}",
        status: "failed",
        attempts: 8,
        lastError: "HTTP 500",
        dedupeKey: `acp:walk-${run}:order_create`,
      },
    })
  ).id;
});
const AGENT_PLATFORM_EXAMPLES: Record<string, Example> = {
  listAgentPlatforms: { ok: () => asAdmin(), error: () => ({ status: 404 }) },
  registerAgentPlatform: {
    ok: () => asAdmin({ body: { name: `Walk Agent New ${run}`, webhook_url: "https://agent.example.com/new" } }),
    error: () => ({ ...asAdmin({ body: { name: `Walk Agent Plain ${run}`, webhook_url: "http://agent.example.com/hooks" } }), status: 400 }),
  },
  updateAgentPlatform: {
    ok: () => asAdmin({ params: { id: agentFx.managed }, body: { webhook_url: "https://agent.example.com/moved" } }),
    error: () => ({ ...asAdmin({ params: { id: "ap_missing" }, body: { webhook_url: null } }), status: 404 }),
  },
  rotateAgentPlatformWebhookSecret: {
    ok: () => asAdmin({ params: { id: agentFx.managed } }),
    error: () => ({ ...asAdmin({ params: { id: "ap_missing" } }), status: 404 }),
  },
  revokeAgentPlatform: {
    ok: () => asAdmin({ params: { id: agentFx.revocable }, body: { reason: "Registry walk" } }),
    error: () => ({ ...asAdmin({ params: { id: agentFx.revocable }, body: { reason: "Registry walk" } }), status: 409 }),
  },
  listWebhookDeliveries: {
    ok: () => asAdmin({ query: { platform_id: agentFx.managed, status: "failed", limit: "10" } }),
    error: () => ({ ...asAdmin({ query: { status: "lost" } }), status: 400 }),
  },
  retryWebhookDelivery: {
    ok: () => asAdmin({ params: { id: agentFx.delivery } }),
    error: () => ({ ...asAdmin({ params: { id: agentFx.delivery } }), status: 409 }),
  },
  // The platform's own webhook, with its own key (a public address literal: no DNS; nothing is sent).
  getOwnAgentPlatformWebhook: {
    ok: () => ({ headers: asPlatform() }),
    error: () => ({ headers: { "api-version": "2026-04-17" }, status: 401 }),
  },
  setOwnAgentPlatformWebhook: {
    ok: () => ({ headers: asPlatform(), body: { webhook_url: "https://93.184.216.34/walk-agent" } }),
    error: () => ({ headers: asPlatform(), body: { webhook_url: "https://10.0.0.1/walk-agent" }, status: 400 }),
  },
  rotateOwnAgentPlatformWebhookSecret: {
    ok: () => ({ headers: { ...asPlatform(), "idempotency-key": randomUUID() } }),
    error: () => ({ headers: { "api-version": "2026-04-17" }, status: 401 }),
  },
};
const asPlatform = () => ({ authorization: `Bearer ${agentFx.key}`, "api-version": "2026-04-17" });

// My licenses' own operations (no REST route, no tool): a buyer signed in, with a bought license with one machine and a
// complimentary one (which may not review). Run through execute() below, and in tests/integration/buyer-operations.test.ts.
const buyerFx = { cookie: "", license: "", machine: "", gift: "" };
beforeAll(async () => {
  const email = `walk-my-licenses-${run}@example.com`;
  const license = await issueLicense(getDb(), { productId: revFx.product, buyerEmail: email, maxMachines: 2, source: "purchase" });
  const gift = await issueLicense(getDb(), { productId: revFx.product, buyerEmail: email, maxMachines: 1, source: "complimentary" });
  const fp = fingerprint(`walk-my-licenses-${run}`);
  await activateMachine({ license_key: license.key, machine_fingerprint: fp, plugin_id: `com.walk.rev${run}` });
  buyerFx.license = license.id;
  buyerFx.gift = gift.id;
  buyerFx.machine = (await getDb().activation.findFirstOrThrow({ where: { licenseId: license.id, fingerprint: fp } })).id;
  await requestSignIn({ email, purpose: "buyer" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  buyerFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
// Subscriptions: a seller's subscription product and five subscriptions of the signed-in buyer of My licenses: one to
// read and change the card of, one each to cancel (seller, buyer, operator), one already canceled to resume.
const subsFx = { cookie: "", read: "", sellerCancels: "", buyerCancels: "", adminCancels: "", canceled: "", ended: "", changes: "", stripe: "" };
beforeAll(async () => {
  const email = `walk-subs-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Subs ${run}`, website: null, bio: "" });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({
      ...productBody(`Walk Subs ${run}`, `com.walk.subs${run}`, {
        pricing_model: "subscription",
        monthly_price_cents: 500,
        yearly_price_cents: 5000,
      }),
      seat_model: "per-seat",
    }),
    { publish: true },
  );
  const buyerEmail = `walk-my-licenses-${run}@example.com`;
  const subscribe = async () => {
    const { session_id } = await createCheckout({ product_id: product.id, buyer_email: buyerEmail, interval: "month" });
    await payTestCheckout(session_id);
    return (await getDb().order.findUniqueOrThrow({ where: { id: session_id } })).subscriptionId!;
  };
  subsFx.read = await subscribe();
  subsFx.sellerCancels = await subscribe();
  subsFx.buyerCancels = await subscribe();
  subsFx.adminCancels = await subscribe();
  subsFx.canceled = await subscribe();
  await cancelSubscriptionAs({ buyerEmail }, subsFx.canceled, { type: "buyer", name: buyerEmail });
  // Canceled, and its period over: ended, whatever the examples do in whichever order.
  subsFx.ended = await subscribe();
  await cancelSubscriptionAs({ buyerEmail }, subsFx.ended, { type: "buyer", name: buyerEmail });
  await advanceTestClock(subsFx.ended, { days: 40 });
  subsFx.changes = await subscribe();
  // One Stripe bills (its customer portal answered by the stand-in).
  subsFx.stripe = await subscribe();
  await getDb().subscription.update({
    where: { id: subsFx.stripe },
    data: { provider: "stripe", providerSubscriptionId: `sub_walk${run}`, providerCustomerId: `cus_walk${run}`, testCard: null },
  });
  subsFx.cookie = await sellerCookie(email);
});
const asSubsSeller = (c: Call = {}): Call => ({ ...c, headers: { cookie: subsFx.cookie } });
const SUBSCRIPTIONS_EXAMPLES: Record<string, Example> = {
  listSubscriptions: { ok: () => asSubsSeller({ query: { status: "active", limit: "10" } }), error: () => ({ status: 401 }) },
  getSubscription: {
    ok: () => asSubsSeller({ params: { id: subsFx.read } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: subsFx.read }, status: 404 }),
  },
  cancelSubscription: {
    ok: () => asSubsSeller({ params: { id: subsFx.sellerCancels } }),
    error: () => ({ ...asSubsSeller({ params: { id: subsFx.ended } }), status: 409 }),
  },
  adminGetSubscription: {
    ok: () => asAdmin({ params: { id: subsFx.read } }),
    error: () => ({ ...asAdmin({ params: { id: "sub_none" } }), status: 404 }),
  },
  adminCancelSubscription: {
    ok: () => asAdmin({ params: { id: subsFx.adminCancels } }),
    error: () => ({ ...asAdmin({ params: { id: subsFx.ended } }), status: 409 }),
  },
  adminSetTestCard: {
    ok: () => asAdmin({ params: { id: subsFx.read }, body: { card: "succeeds" } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: subsFx.read }, body: { card: "succeeds" }, status: 404 }),
  },
  // A day passes: nothing of a monthly subscription falls due in it.
  advanceTestClock: {
    ok: () => asAdmin({ params: { id: subsFx.read }, body: { days: 1 } }),
    error: () => ({ ...asAdmin({ params: { id: "sub_none" }, body: { days: 1 } }), status: 404 }),
  },
};

// Invoices and transfers: three paid orders of the My licenses buyer for a product that allows transfers; two of
// their licenses are offered to a recipient (one to cancel, one the recipient accepts).
const transferFx = { order: "", license: "", toCancel: "", toAccept: "", recipientCookie: "" };
beforeAll(async () => {
  const buyerEmail = `walk-my-licenses-${run}@example.com`;
  const recipient = `walk-transfer-to-${run}@example.com`;
  const dev = await sellingDeveloper(`walk-transfers-${run}@example.com`, { name: `Walk Transfers ${run}`, website: null, bio: "" });
  const product = await createProduct(
    dev.id,
    productInputSchema.parse({ ...productBody(`Walk Transfers ${run}`, `com.walk.transfers${run}`), allow_transfers: true }),
    { publish: true },
  );
  const buy = async () => {
    const { session_id } = await createCheckout({ product_id: product.id, buyer_email: buyerEmail });
    await payTestCheckout(session_id);
    const license = await getDb().license.findFirstOrThrow({ where: { orderId: session_id } });
    return { order: session_id, license: license.id };
  };
  const first = await buy();
  transferFx.order = first.order;
  transferFx.license = first.license;
  transferFx.toCancel = (await startTransfer(buyerEmail, { license_id: (await buy()).license, to_email: recipient })).transfer_id;
  transferFx.toAccept = (await startTransfer(buyerEmail, { license_id: (await buy()).license, to_email: recipient })).transfer_id;
  transferFx.recipientCookie = await buyerCookie(recipient);
});
const asBuyer = (c: Call = {}): Call => ({ ...c, headers: { cookie: buyerFx.cookie, ...c.headers } });
const BUYER_EXAMPLES: Record<string, Example> = {
  buyerCancelSubscription: {
    ok: () => asBuyer({ params: { id: subsFx.buyerCancels } }),
    error: () => ({ ...asBuyer({ params: { id: "sub_not_theirs" } }), status: 404 }),
  },
  // Already canceled in the fixture; resuming one that is not canceled is a 409.
  buyerResumeSubscription: {
    ok: () => asBuyer({ params: { id: subsFx.canceled } }),
    error: () => ({ ...asBuyer({ params: { id: subsFx.read } }), status: 409 }),
  },
  buyerPreviewPlanChange: {
    ok: () => asBuyer({ params: { id: subsFx.read }, body: { quantity: 3 } }),
    error: () => ({ ...asBuyer({ params: { id: subsFx.read }, body: { quantity: 1 } }), status: 409 }),
  },
  buyerChangePlan: {
    ok: () => asBuyer({ params: { id: subsFx.changes }, body: { interval: "year" } }),
    error: () => ({ ...asBuyer({ params: { id: subsFx.ended }, body: { quantity: 2 } }), status: 409 }),
  },
  buyerOpenBillingPortal: {
    ok: () => ({ ...asBuyer({ params: { id: subsFx.stripe } }), env: { ...STRIPE_ON, STRIPE_API_BASE: payoutFx.base } }),
    error: () => ({ ...asBuyer({ params: { id: subsFx.read } }), status: 409 }),
  },
  buyerSetTestCard: {
    ok: () => asBuyer({ params: { id: subsFx.read }, body: { card: "succeeds" } }),
    error: () => ({ ...asBuyer({ params: { id: "sub_not_theirs" }, body: { card: "fails" } }), status: 404 }),
  },
  // A machine still on the license: the undo changes nothing (restored: false), so the order of the two does not matter.
  buyerRestoreMachine: {
    ok: () => asBuyer({ params: { id: buyerFx.license, machine_id: buyerFx.machine } }),
    error: () => ({ params: { id: buyerFx.license, machine_id: buyerFx.machine }, status: 401 }),
  },
  buyerReleaseMachine: {
    ok: () => asBuyer({ params: { id: buyerFx.license, machine_id: buyerFx.machine } }),
    error: () => ({ ...asBuyer({ params: { id: "not-their-license", machine_id: buyerFx.machine } }), status: 404 }),
  },
  buyerSetBillingDetails: {
    ok: () => asBuyer({ body: { order_id: transferFx.order, name: "Walk Buyer GmbH", address: "1 Example Street, Berlin", country: "de" } }),
    error: () => ({ ...asBuyer({ body: { order_id: "ord_not_theirs", name: "Walk", address: "Nowhere", country: "DE" } }), status: 404 }),
  },
  buyerStartTransfer: {
    ok: () => asBuyer({ body: { license_id: transferFx.license, to_email: `walk-transfer-other-${run}@example.com` } }),
    // The My licenses fixture's product does not allow transfers.
    error: () => ({ ...asBuyer({ body: { license_id: buyerFx.license, to_email: `walk-transfer-other-${run}@example.com` } }), status: 403 }),
  },
  buyerCancelTransfer: {
    ok: () => asBuyer({ body: { transfer_id: transferFx.toCancel } }),
    error: () => ({ ...asBuyer({ body: { transfer_id: "transfer_not_theirs" } }), status: 404 }),
  },
  buyerAcceptTransfer: {
    ok: () => ({ body: { transfer_id: transferFx.toAccept }, headers: { cookie: transferFx.recipientCookie } }),
    error: () => ({ body: { transfer_id: transferFx.toAccept }, status: 401 }),
  },
  buyerSaveReview: {
    ok: () => asBuyer({ body: { license_id: buyerFx.license, rating: 4, title: "Walk review from My licenses", author_name: "Walker" } }),
    error: () => ({ ...asBuyer({ body: { license_id: buyerFx.gift, rating: 4 } }), status: 403 }),
  },
};
/** An operation without REST or tools answers its example's output, and its error example's declared problem, through execute(). */
async function withoutRest(id: string, example: Example) {
  const op = operations().find((o) => o.id === id)!;
  const runIt = async (c: Call) => {
    const ctx = {
      transport: "action" as const,
      client: "198.51.100.3",
      requestId: "walk",
      headers: new Headers(c.headers),
      origin: "http://localhost:3000",
    };
    try {
      return { ok: true as const, output: await execute(op, parseParts(op, { params: c.params, query: c.query, body: c.body }), ctx) };
    } catch (error) {
      return { ok: false as const, problem: error as { status: number; code: string } };
    }
  };
  const okCall = example.ok();
  const before = Object.fromEntries(Object.keys(okCall.env ?? {}).map((k) => [k, process.env[k]]));
  if (okCall.env) setLimits(okCall.env);
  const ok = await runIt(okCall).finally(() => {
    for (const [k, v] of Object.entries(before)) if (v === undefined) Reflect.deleteProperty(process.env, k);
    setLimits(Object.fromEntries(Object.entries(before).filter(([, v]) => v !== undefined)) as Record<string, string>);
  });
  expect(ok.ok, JSON.stringify(ok)).toBe(true);
  if (ok.ok) expect(op.output.safeParse(ok.output).success, `${id}: ${JSON.stringify(ok.output)}`).toBe(true);
  const { status, ...bad } = example.error();
  const err = await runIt(bad);
  expect(err.ok ? undefined : err.problem.status, JSON.stringify(err)).toBe(status);
  const declared = new Set([...(op.errors ?? []), 500, 503, ...(op.input ? [400] : []), ...(op.input?.body ? [413] : [])]);
  expect(declared.has(status), `${id} answered ${status}, which it does not declare`).toBe(true);
}
describe("operations without REST or tools: My licenses'", () => {
  for (const [id, example] of Object.entries(BUYER_EXAMPLES)) {
    it(`${id} answers its declared output, and a declared problem, through execute()`, () => withoutRest(id, example));
  }
});

// ACP delegated payments (test vault): an open ACP checkout session of an anonymous agent; a card failing Luhn is 422.
const acpPayFx = { session: "" };
beforeAll(async () => {
  acpPayFx.session = `acs_walk_${run}`;
  await getDb().acpCheckoutSession.create({
    data: {
      id: acpPayFx.session,
      status: "ready_for_payment",
      productId: (await getDb().product.findFirstOrThrow({ where: { status: "active" } })).id,
      quantity: 1,
      currency: "usd",
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
});
const delegateBody = (number = "4242424242424242") => ({
  payment_method: { type: "card", card_number_type: "fpan", number, display_card_funding_type: "credit", metadata: {} },
  allowance: {
    reason: "one_time",
    max_amount: 100_000,
    currency: "usd",
    checkout_session_id: acpPayFx.session,
    merchant_id: "walk",
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  },
  risk_signals: [{ type: "card_testing", score: 0, action: "authorized" }],
  metadata: {},
});
const ACP_PAYMENTS_EXAMPLES: Record<string, Example> = {
  delegatePayment: {
    ok: () => ({ headers: { "idempotency-key": randomUUID(), "api-version": "2026-04-17" }, body: delegateBody() }),
    error: () => ({ headers: { "idempotency-key": randomUUID(), "api-version": "2026-04-17" }, body: delegateBody("4242424242424241"), status: 422 }),
  },
};

// ACP checkout sessions (anonymous agent, test mode): sessions made beforehand, a fresh one (with a token) for each
// call that completes or cancels one, since those change it for good.
const acpSessFx: { productId: string; open: string; complete: Array<{ id: string; token: string }>; cancel: string[] } = {
  productId: "",
  open: "",
  complete: [],
  cancel: [],
};
const ACP_HEADERS = () => ({ "idempotency-key": randomUUID(), "api-version": "2026-04-17" });
const acpMeta = () => ({ api_version: "2026-04-17", idempotency_key: randomUUID() });
const take = <T>(queue: T[]): T => (queue.length > 1 ? queue.shift()! : queue[0]!);
beforeAll(async () => {
  const product = await getDb().product.findFirstOrThrow({ where: { status: "active", currency: "usd", seatModel: "per-machine" } });
  acpSessFx.productId = product.id;
  const agent = { platformId: null, name: "registry walk" };
  const open = () => createSession({ line_items: [{ id: product.id }], currency: "usd", buyer: { email: `acp-walk-${run}@example.com` } }, agent);
  acpSessFx.open = (await open()).id;
  for (let i = 0; i < 4; i++) {
    const s = await open();
    const body = delegateBody();
    const request = delegatePaymentRequestSchema.parse({
      ...body,
      allowance: { ...body.allowance, checkout_session_id: s.id, max_amount: product.priceCents },
    });
    const token = await delegatePayment(request, { platformId: null, idempotencyKey: undefined });
    acpSessFx.complete.push({ id: s.id, token: token.id });
    acpSessFx.cancel.push((await open()).id);
  }
});
const acpPayment = (token: string) => ({ handler_id: "test_card", instrument: { type: "card", credential: { type: "vt", token } } });
const ACP_SESSIONS_EXAMPLES: Record<string, Example> = {
  createAcpCheckoutSession: {
    ok: () => ({ headers: ACP_HEADERS(), body: { line_items: [{ id: acpSessFx.productId }], currency: "usd", capabilities: {} } }),
    error: () => ({ headers: ACP_HEADERS(), body: { line_items: [{ id: acpSessFx.productId }], currency: "eur" }, status: 400 }),
  },
  getAcpCheckoutSession: {
    ok: () => ({ headers: { "api-version": "2026-04-17" }, params: { checkout_session_id: acpSessFx.open } }),
    error: () => ({ headers: { "api-version": "2026-04-17" }, params: { checkout_session_id: "acs_000000000000000000000000" }, status: 404 }),
  },
  updateAcpCheckoutSession: {
    ok: () => ({
      headers: ACP_HEADERS(),
      params: { checkout_session_id: acpSessFx.open },
      body: { buyer: { email: `acp-walk-${run}@example.com` } },
    }),
    error: () => ({ headers: ACP_HEADERS(), params: { checkout_session_id: "acs_000000000000000000000000" }, body: {}, status: 404 }),
  },
  completeAcpCheckoutSession: {
    ok: () => {
      const s = take(acpSessFx.complete);
      return { headers: ACP_HEADERS(), params: { checkout_session_id: s.id }, body: { payment_data: acpPayment(s.token) } };
    },
    error: () => ({
      headers: ACP_HEADERS(),
      params: { checkout_session_id: "acs_000000000000000000000000" },
      body: { payment_data: acpPayment("vt_0") },
      status: 404,
    }),
  },
  cancelAcpCheckoutSession: {
    ok: () => ({ headers: ACP_HEADERS(), params: { checkout_session_id: take(acpSessFx.cancel) }, body: {} }),
    error: () => ({ headers: ACP_HEADERS(), params: { checkout_session_id: "acs_000000000000000000000000" }, body: {}, status: 404 }),
  },
  getAcpDiscovery: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
};

// Releases: a seller with drafts, a draft with an artifact to publish, a published release to yank, an artifact to delete.
const relFx = { cookie: "", product: "", artifact: "", n: 0 };
const ZIP_BYTES = "PK\u0003\u0004 a release artifact of the registry walk";
beforeAll(async () => {
  process.env.UPLOAD_DIR = mkdtempSync(join(tmpdir(), "walk-releases-"));
  resetEnv();
  resetObjectStore();
  const email = `walk-releases-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Releases ${run}`, website: null, bio: "" });
  relFx.product = (
    await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Releases ${run}`, `com.walk.rel${run}`)), { publish: true })
  ).id;
  const upload = (version: string, platform: string) =>
    ingestArtifact(dev.id, relFx.product, version, {
      platform,
      filename: "app.zip",
      stream: Readable.from([Buffer.from(ZIP_BYTES)]),
      contentLength: null,
    });
  for (const version of ["1.0.0", "0.0.1", "0.0.2", "1.5.0", "2.0.0", "3.0.0"]) await createRelease(dev.id, relFx.product, { version });
  await upload("1.5.0", "linux-x64");
  await publishRelease(dev.id, relFx.product, "1.5.0");
  await upload("2.0.0", "linux-x64");
  relFx.artifact = (await upload("3.0.0", "windows-x64")).id;
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  relFx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
const relCall = (params: Record<string, string> = {}) => ({ headers: { cookie: relFx.cookie }, params: { id: relFx.product, ...params } });
const RELEASES_EXAMPLES: Record<string, Example> = {
  listSellerReleases: { ok: () => relCall(), error: () => ({ ...relCall(), params: { id: "no-such-product" }, status: 404 }) },
  createRelease: {
    ok: () => ({ ...relCall(), body: { version: `4.0.${++relFx.n}`, notes: "New **things**." } }),
    error: () => ({ ...relCall(), body: { version: "v1.0.0" }, status: 400 }),
  },
  updateRelease: {
    ok: () => ({ ...relCall({ version: "1.0.0" }), body: { notes: "Edited.", channel: "beta" } }),
    error: () => ({ ...relCall({ version: "1.5.0" }), body: { channel: "beta" }, status: 409 }),
  },
  deleteRelease: { ok: () => relCall({ version: "0.0.1" }), error: () => ({ ...relCall({ version: "1.5.0" }), status: 409 }) },
  publishRelease: { ok: () => relCall({ version: "2.0.0" }), error: () => ({ ...relCall({ version: "0.0.2" }), status: 409 }) },
  yankRelease: { ok: () => relCall({ version: "1.5.0" }), error: () => ({ ...relCall({ version: "1.0.0" }), status: 409 }) },
  uploadArtifact: {
    ok: () => ({ ...relCall({ version: "1.0.0" }), query: { platform: "linux-arm64", filename: "app.zip" }, raw: ZIP_BYTES }),
    error: () => ({ ...relCall({ version: "1.0.0" }), query: { platform: "linux-x64", filename: "app.zip" }, raw: "not a zip", status: 415 }),
  },
  deleteArtifact: {
    ok: () => relCall({ version: "3.0.0", artifact_id: relFx.artifact }),
    error: () => ({ ...relCall({ version: "3.0.0", artifact_id: "no-such-artifact" }), status: 404 }),
  },
  listReleases: { ok: () => ({ params: { id: relFx.product } }), error: () => ({ params: { id: "no-such-product" }, status: 404 }) },
};
// Updates: a product with a published release (Windows, macOS and Linux builds), a license activated on one machine,
// and that machine's feed token; another machine is not activated.
const updFx = { pluginId: "", key: "", machine: fingerprint(), token: "", artifact: "" };
beforeAll(async () => {
  const dev = await sellingDeveloper(`walk-updates-${run}@example.com`, { name: `Walk Updates ${run}`, website: null, bio: "" });
  const product = await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Updates ${run}`, `com.walk.upd${run}`)), { publish: true });
  updFx.pluginId = product.pluginId;
  await createRelease(dev.id, product.id, { version: "1.0.0", notes: "First." });
  for (const platform of ["windows-x64", "macos-universal", "linux-x64"]) {
    const view = await ingestArtifact(dev.id, product.id, "1.0.0", {
      platform,
      filename: "app.zip",
      stream: Readable.from([Buffer.from(ZIP_BYTES)]),
      contentLength: null,
    });
    updFx.artifact = view.id;
  }
  await publishRelease(dev.id, product.id, "1.0.0");
  const { license } = await newLicense({ productId: product.id });
  updFx.key = license.key;
  const activation = await activateMachine({ license_key: license.key, machine_fingerprint: updFx.machine, plugin_id: product.pluginId });
  const row = await getDb().activation.findFirstOrThrow({ where: { licenseId: license.id, fingerprint: updFx.machine } });
  expect(activation.activated).toBe(true);
  updFx.token = await feedToken(row.id);
});
const appHeaders = () => ({ "x-license-key": updFx.key, "x-machine-fingerprint": updFx.machine });
const feed = (extra: Record<string, string> = {}) => ({ params: { plugin_id: updFx.pluginId, token: updFx.token, ...extra } });
const forged = (extra: Record<string, string> = {}) => ({
  params: { plugin_id: updFx.pluginId, token: `${updFx.token.split(".")[0]}.${"A".repeat(32)}`, ...extra },
  status: 404,
});
const UPDATES_EXAMPLES: Record<string, Example> = {
  checkForUpdate: {
    ok: () => ({ headers: appHeaders(), params: { plugin_id: updFx.pluginId }, query: { version: "0.9.0", platform: "linux-x64" } }),
    error: () => ({
      headers: { ...appHeaders(), "x-machine-fingerprint": fingerprint() },
      params: { plugin_id: updFx.pluginId },
      query: { platform: "linux-x64" },
      status: 403,
    }),
  },
  downloadUpdate: {
    ok: () => ({ headers: appHeaders(), params: { plugin_id: updFx.pluginId }, query: { platform: "windows-x64" } }),
    error: () => ({
      headers: appHeaders(),
      params: { plugin_id: updFx.pluginId },
      query: { platform: "windows-x64", version: "9.0.0" },
      status: 404,
    }),
  },
  getUpdateKeys: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  getElectronUpdateFeed: { ok: () => feed({ file: "latest.yml" }), error: () => forged({ file: "latest.yml" }) },
  getSparkleAppcast: { ok: () => feed(), error: () => forged() },
  getTauriUpdateFeed: { ok: () => ({ ...feed(), query: { channel: "beta" } }), error: () => forged() },
  downloadFeedArtifact: { ok: () => feed({ artifact_id: updFx.artifact }), error: () => forged({ artifact_id: updFx.artifact }) },
  downloadFeedArtifactNamed: {
    ok: () => feed({ artifact_id: updFx.artifact, name: "linux-x64-app.zip" }),
    error: () => ({ ...feed({ artifact_id: "nosuchartifact", name: "app.zip" }), status: 404 }),
  },
};
// The seller dashboard's own operations (no REST route or tool; its server actions run them): a seller signed in who
// has no developer profile yet (createSellerProfile), and the walk's seller with their product.
const newSellerFx = { cookie: "" };
beforeAll(async () => {
  newSellerFx.cookie = await sellerCookie(`walk-new-seller-${run}@example.com`);
});
const PNG = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
const DASHBOARD_EXAMPLES: Record<string, Example> = {
  createSellerProfile: {
    ok: () => ({ headers: { cookie: newSellerFx.cookie }, body: { name: `Walk Profile ${run}` } }),
    error: () => ({ headers: { cookie: fx.cookie }, body: { name: `Walk Studio ${run}` }, status: 409 }),
  },
  updateSellerProfile: {
    ok: () => ({ headers: { cookie: fx.cookie }, body: { name: `Walk Studio ${run}`, ...SELLER_TRUST } }),
    error: () => ({ body: { name: `Walk Studio ${run}` }, status: 401 }),
  },
  setSellerSaleEmails: {
    ok: () => ({ headers: { cookie: fx.cookie }, body: { sale_emails: "each" } }),
    error: () => ({ headers: { cookie: fx.cookie }, body: { sale_emails: "weekly" }, status: 400 }),
  },
  setSellerProductStatus: {
    ok: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.sellerProduct }, body: { status: "active" } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.productId }, body: { status: "unlisted" }, status: 404 }),
  },
  checkSellerProduct: {
    ok: () => ({ headers: { cookie: fx.cookie }, body: productBody(`Walk Checked ${run}`, `com.walk.checked${run}`) }),
    error: () => ({ headers: { cookie: fx.cookie }, body: { name: "x" }, status: 400 }),
  },
  moveProductMedia: {
    ok: () => ({ ...mediaCall({ media_id: mediaFx.d }, mediaFx.product2), body: { direction: "down" } }),
    error: () => ({ ...mediaCall({ media_id: "no-such-media" }, mediaFx.product2), body: { direction: "up" }, status: 404 }),
  },
  storeProductImages: {
    ok: () => ({ headers: { cookie: fx.cookie }, body: { files: [new File([new Uint8Array(Buffer.concat([PNG, Buffer.from(run)]))], "icon.png")] } }),
    error: () => ({ headers: { cookie: fx.cookie }, body: { files: [new File(["<svg/>"], "icon.png")] }, status: 415 }),
  },
};
describe("operations without REST or tools: the seller dashboard's", () => {
  for (const [id, example] of Object.entries(DASHBOARD_EXAMPLES)) {
    it(`${id} answers its declared output, and a declared problem, through execute()`, () => withoutRest(id, example));
  }
});
// The operations behind the pages' own form routes (sign-in and out, test mode's Pay and Cancel, the return from
// Stripe's onboarding): no REST route or tool; app/auth/… and app/checkout/… run them through execute().
const formFx = { token: "", paid: "", cancelled: "" };
beforeAll(async () => {
  const email = `walk-forms-${run}@example.com`;
  await requestSignIn({ email, purpose: "buyer" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  formFx.token = /token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
  const product = await getDb().product.findFirstOrThrow({ where: { status: "active", priceCents: { gt: 0 } }, orderBy: { id: "asc" } });
  formFx.paid = (await createCheckout({ product_id: product.id, buyer_email: `walk-pay-${run}@example.com` })).session_id;
  formFx.cancelled = (await createCheckout({ product_id: product.id, buyer_email: `walk-cancel-${run}@example.com` })).session_id;
});
const NO_SESSION = "cs_000000000000000000000000";
const FORM_EXAMPLES: Record<string, Example> = {
  requestSignIn: {
    ok: () => ({ body: { email: `walk-forms-again-${run}@example.com`, purpose: "seller", next: "/dashboard/products" } }),
    error: () => ({ body: { email: "not an address", purpose: "buyer" }, status: 400 }),
  },
  confirmSignIn: { ok: () => ({ body: { token: formFx.token } }), error: () => ({ body: { token: "used-or-unknown" }, status: 400 }) },
  endSession: { ok: () => ({ body: { session: "no-such-session" } }), error: () => ({ body: { session: "x".repeat(101) }, status: 400 }) },
  payTestCheckout: { ok: () => ({ params: { session_id: formFx.paid } }), error: () => ({ params: { session_id: NO_SESSION }, status: 404 }) },
  cancelTestCheckout: {
    ok: () => ({ params: { session_id: formFx.cancelled } }),
    error: () => ({ params: { session_id: NO_SESSION }, status: 404 }),
  },
  refreshPayoutAccount: { ok: () => ({ headers: { cookie: fx.cookie } }), error: () => ({ status: 401 }) },
};
describe("operations without REST or tools: the pages' form routes'", () => {
  for (const [id, example] of Object.entries(FORM_EXAMPLES)) {
    it(`${id} answers its declared output, and a declared problem, through execute()`, () => withoutRest(id, example));
  }
});
// Bundles: a seller with two products and a third to make a bundle of them; another seller's product is a 404.
const bundlesFx = { cookie: "", bundle: "", items: [] as string[] };
beforeAll(async () => {
  const email = `walk-bundles-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Bundles ${run}`, website: null, bio: "" });
  const make = async (n: string) =>
    (await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Bundle ${n} ${run}`, `com.walk.bundle${n}${run}`)), { publish: true }))
      .id;
  bundlesFx.items = [await make("a"), await make("b")];
  bundlesFx.bundle = await make("all");
  bundlesFx.cookie = await sellerCookie(email);
});
const BUNDLES_EXAMPLES: Record<string, Example> = {
  getBundleItems: {
    ok: () => ({ headers: { cookie: bundlesFx.cookie }, params: { id: bundlesFx.bundle } }),
    error: () => ({ headers: { cookie: bundlesFx.cookie }, params: { id: "no-such-product" }, status: 404 }),
  },
  setBundleItems: {
    ok: () => ({ headers: { cookie: bundlesFx.cookie }, params: { id: bundlesFx.bundle }, body: { product_ids: bundlesFx.items, prorate: true } }),
    error: () => ({
      headers: { cookie: bundlesFx.cookie },
      params: { id: bundlesFx.bundle },
      body: { product_ids: [bundlesFx.items[0], "no-such-product"] },
      status: 404,
    }),
  },
};

// Upgrades: a seller with Standard → Pro on offer and a license of Standard; two more products for a new offer.
const upgradesFx = { cookie: "", offer: "", from: "", to: "", nextFrom: "", nextTo: "", key: "" };
beforeAll(async () => {
  const email = `walk-upgrades-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Upgrades ${run}`, website: null, bio: "" });
  const make = async (n: string) =>
    (await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Upgrade ${n} ${run}`, `com.walk.upgrade${n}${run}`)), { publish: true }))
      .id;
  Object.assign(upgradesFx, { from: await make("std"), to: await make("pro"), nextFrom: await make("lite"), nextTo: await make("max") });
  upgradesFx.offer = (
    await getDb().upgradeOffer.create({
      data: { developerId: dev.id, fromProductId: upgradesFx.from, toProductId: upgradesFx.to, pricing: "difference" },
    })
  ).id;
  upgradesFx.key = (
    await issueLicense(getDb(), { productId: upgradesFx.from, buyerEmail: `walk-upgrader-${run}@example.com`, maxMachines: 2, source: "purchase" })
  ).key;
  upgradesFx.cookie = await sellerCookie(email);
});
const asUpgradeSeller = (c: Call = {}): Call => ({ ...c, headers: { cookie: upgradesFx.cookie, ...c.headers } });
const UPGRADES_EXAMPLES: Record<string, Example> = {
  listUpgradeOffers: { ok: () => asUpgradeSeller(), error: () => ({ status: 401 }) },
  createUpgradeOffer: {
    ok: () =>
      asUpgradeSeller({ body: { from_product_id: upgradesFx.nextFrom, to_product_id: upgradesFx.nextTo, pricing: "fixed", price_cents: 900 } }),
    error: () => ({
      ...asUpgradeSeller({ body: { from_product_id: upgradesFx.from, to_product_id: upgradesFx.to, pricing: "difference" } }),
      status: 409,
    }),
  },
  updateUpgradeOffer: {
    ok: () => asUpgradeSeller({ params: { id: upgradesFx.offer }, body: { active: true } }),
    error: () => ({ ...asUpgradeSeller({ params: { id: "nosuchoffer00" }, body: { active: false } }), status: 404 }),
  },
  quoteUpgrade: {
    ok: () => ({ body: { license_key: upgradesFx.key, to_product_id: upgradesFx.to } }),
    error: () => ({ body: { license_key: "ZZZZ-ZZZZ-ZZZZ-ZZZZ", to_product_id: upgradesFx.to }, status: 404 }),
  },
  // Opening a checkout changes nothing until it is paid, so the walk may open several.
  createUpgradeCheckout: {
    ok: () => ({ body: { license_key: upgradesFx.key, offer_id: upgradesFx.offer } }),
    error: () => ({ body: { license_key: upgradesFx.key, to_product_id: upgradesFx.nextTo }, status: 404 }),
  },
};

// The device flow: a seller's product; pending requests to look up, buy for, approve and deny; one approved already,
// whose device code polls to its license; a buyer holding a license of the product with a free seat.
const deviceFx = { pluginId: "", lookup: "", checkout: "", approve: "", deny: "", deviceCode: "", license: "", cookie: "" };
beforeAll(async () => {
  const email = `walk-device-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Device ${run}`, website: null, bio: "" });
  deviceFx.pluginId = `com.walk.device${run}`;
  const product = await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Device ${run}`, deviceFx.pluginId, { max_machines: 5 })), {
    publish: true,
  });
  const buyer = `walk-device-buyer-${run}@example.com`;
  const license = await issueLicense(getDb(), { productId: product.id, buyerEmail: buyer, maxMachines: 5, source: "purchase" });
  deviceFx.license = license.id;
  const start = (n: string) =>
    startDeviceAuthorization({ plugin_id: deviceFx.pluginId, machine_fingerprint: fingerprint(`walk-device-${n}-${run}`) }, "198.51.100.90");
  deviceFx.lookup = (await start("lookup")).user_code;
  deviceFx.checkout = (await start("checkout")).user_code;
  deviceFx.approve = (await start("approve")).user_code;
  deviceFx.deny = (await start("deny")).user_code;
  const polled = await start("poll");
  // The operation hands the library the code as stored: upper case, no dash.
  await approveWithLicense({ user_code: polled.user_code.replace("-", ""), license_id: license.id }, buyer);
  deviceFx.deviceCode = polled.device_code;
  deviceFx.cookie = await buyerCookie(buyer);
});
const UNKNOWN_USER_CODE = "BCDF-GHJK";
const DEVICE_EXAMPLES: Record<string, Example> = {
  authorizeDevice: {
    ok: () => ({ body: { plugin_id: deviceFx.pluginId, machine_fingerprint: fingerprint(`walk-device-new-${run}`), app_version: "1.0.0" } }),
    error: () => ({ body: { plugin_id: "com.walk.nosuchproduct", machine_fingerprint: fingerprint(`walk-device-x-${run}`) }, status: 404 }),
  },
  // Approved and completed: every poll answers the license again until the request expires.
  pollDeviceToken: {
    ok: () => ({ body: { device_code: deviceFx.deviceCode, grant_type: "urn:ietf:params:oauth:grant-type:device_code" } }),
    error: () => ({ body: { device_code: "x".repeat(43) }, status: 400 }),
  },
  lookupDeviceCode: { ok: () => ({ body: { user_code: deviceFx.lookup } }), error: () => ({ body: { user_code: UNKNOWN_USER_CODE }, status: 404 }) },
  // Opening a checkout for a pending request leaves it pending until paid, so the walk may open several.
  startDeviceCheckout: {
    ok: () => ({ body: { user_code: deviceFx.checkout, buyer_email: `walk-device-payer-${run}@example.com` } }),
    error: () => ({ body: { user_code: UNKNOWN_USER_CODE, buyer_email: `walk-device-payer-${run}@example.com` }, status: 404 }),
  },
  approveDeviceWithLicense: {
    ok: () => ({
      headers: { cookie: deviceFx.cookie, origin: "http://localhost:3000" },
      body: { user_code: deviceFx.approve, license_id: deviceFx.license },
    }),
    error: () => ({ body: { user_code: deviceFx.approve, license_id: deviceFx.license }, status: 401 }),
  },
  // Denying twice changes nothing more.
  denyDevice: { ok: () => ({ body: { user_code: deviceFx.deny } }), error: () => ({ body: { user_code: UNKNOWN_USER_CODE }, status: 404 }) },
};

// The buy button: a seller with one pending origin served by a local site whose well-known file holds its token, so
// verifying it succeeds (loopback allowed for that call only); another origin to remove.
const embedFx = { cookie: "", site: "", verify: "", remove: "", close: () => {} };
let embedAdds = 0;
beforeAll(async () => {
  const email = `walk-embed-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Embed ${run}`, website: null, bio: "" });
  const token = `walk-embed-token-${run}`;
  const server = createServer((req, res) => {
    if (req.url === "/.well-known/indie-license-market.txt") res.writeHead(200, { "content-type": "text/plain" }).end(token);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  embedFx.close = () => server.close();
  embedFx.site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const origin = (o: string) =>
    getDb().embedOrigin.create({ data: { id: `eo_walk${randomUUID().slice(0, 12)}`, developerId: dev.id, origin: o, token } });
  embedFx.verify = (await origin(embedFx.site)).id;
  embedFx.remove = (await origin(`https://remove-${run}.example.com`)).id;
  embedFx.cookie = await sellerCookie(email);
});
afterAll(() => embedFx.close());
const asEmbedSeller = (c: Call = {}): Call => ({ ...c, headers: { cookie: embedFx.cookie, ...c.headers } });
const EMBED_EXAMPLES: Record<string, Example> = {
  listEmbedOrigins: { ok: () => asEmbedSeller(), error: () => ({ status: 401 }) },
  addEmbedOrigin: {
    ok: () => asEmbedSeller({ body: { origin: `https://shop${++embedAdds}-${run}.example.com` } }),
    error: () => ({ ...asEmbedSeller({ body: { origin: "https://shop.example.com/a/path" } }), status: 400 }),
  },
  verifyEmbedOrigin: {
    ok: () => asEmbedSeller({ params: { id: embedFx.verify }, env: { WEBHOOK_ALLOW_PRIVATE: "on" } }),
    error: () => ({ ...asEmbedSeller({ params: { id: "eo_nosuchorigin00" } }), status: 404 }),
  },
  removeEmbedOrigin: {
    ok: () => asEmbedSeller({ params: { id: embedFx.remove } }),
    error: () => ({ ...asEmbedSeller({ params: { id: "eo_nosuchorigin00" } }), status: 404 }),
  },
};

// Checkout links: a seller's product with a link buyers open and check out through.
const linksFx = { cookie: "", product: "", developer: "", link: "", slug: `walk-link-${run}` };
let linkSlugs = 0;
beforeAll(async () => {
  const email = `walk-links-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Links ${run}`, website: null, bio: "" });
  linksFx.developer = dev.id;
  linksFx.product = (
    await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Link ${run}`, `com.walk.link${run}`)), { publish: true })
  ).id;
  linksFx.link = (
    await getDb().checkoutLink.create({ data: { developerId: dev.id, productId: linksFx.product, slug: linksFx.slug, name: "Walk link" } })
  ).id;
  linksFx.cookie = await sellerCookie(email);
});
const asLinkSeller = (c: Call = {}): Call => ({ ...c, headers: { cookie: linksFx.cookie, ...c.headers } });
const LINKS_EXAMPLES: Record<string, Example> = {
  listCheckoutLinks: { ok: () => asLinkSeller(), error: () => ({ status: 401 }) },
  createCheckoutLink: {
    ok: () => asLinkSeller({ body: { product_id: linksFx.product, name: "Walk", slug: `walk-${run}-${++linkSlugs}` } }),
    error: () => ({ ...asLinkSeller({ body: { product_id: linksFx.product, name: "Walk", slug: linksFx.slug } }), status: 409 }),
  },
  updateCheckoutLink: {
    ok: () => asLinkSeller({ params: { id: linksFx.link }, body: { name: "Walk link, renamed" } }),
    error: () => ({ ...asLinkSeller({ params: { id: "nosuchlink000000" }, body: { name: "x" } }), status: 404 }),
  },
  viewCheckoutLink: {
    ok: () => ({ params: { developer_id: linksFx.developer, slug: linksFx.slug } }),
    error: () => ({ params: { developer_id: linksFx.developer, slug: "no-such-link" }, status: 404 }),
  },
  startCheckoutLink: {
    ok: () => ({ params: { developer_id: linksFx.developer, slug: linksFx.slug }, body: { buyer_email: `walk-link-buyer-${run}@example.com` } }),
    error: () => ({
      params: { developer_id: linksFx.developer, slug: "no-such-link" },
      body: { buyer_email: `walk-link-buyer-${run}@example.com` },
      status: 404,
    }),
  },
};

// Product media (lib/media): the walk's seller's product with two audio items (an MP3 is recognised by its "ID3"
// header, so the bodies can be text), and a second product whose two items only ever change order.
const mediaFx = { product2: "", a: "", c: "", d: "", e: "" };
const mediaCall = (params: Record<string, string> = {}, product = fx.sellerProduct) => ({
  headers: { cookie: fx.cookie },
  params: { id: product, ...params },
});
const MEDIA_EXAMPLES: Record<string, Example> = {
  listProductMedia: { ok: () => mediaCall(), error: () => ({ ...mediaCall(), params: { id: "no-such-product" }, status: 404 }) },
  uploadProductMedia: {
    ok: () => ({ ...mediaCall(), query: { kind: "audio", caption: "Walk" }, raw: `ID3 walk upload ${run}` }),
    error: () => ({ ...mediaCall(), query: { kind: "audio" }, raw: "not a media file", status: 415 }),
  },
  updateProductMedia: {
    ok: () => ({ ...mediaCall({ media_id: mediaFx.a }), body: { caption: "Renamed" } }),
    error: () => ({ ...mediaCall({ media_id: "no-such-media" }), body: { caption: "x" }, status: 404 }),
  },
  reorderProductMedia: {
    ok: () => ({ ...mediaCall({}, mediaFx.product2), body: { ids: [mediaFx.e, mediaFx.d] } }),
    error: () => ({ ...mediaCall({}, mediaFx.product2), body: { ids: [mediaFx.d] }, status: 400 }),
  },
  deleteProductMedia: { ok: () => mediaCall({ media_id: mediaFx.c }), error: () => ({ ...mediaCall({ media_id: "no-such-media" }), status: 404 }) },
};

const EXAMPLES: Record<string, Example> = {
  ...DEVICE_EXAMPLES,
  ...EMBED_EXAMPLES,
  ...LINKS_EXAMPLES,
  ...UPGRADES_EXAMPLES,
  ...BUNDLES_EXAMPLES,
  ...RELEASES_EXAMPLES,
  ...MEDIA_EXAMPLES,
  ...UPDATES_EXAMPLES,
  ...ACP_PAYMENTS_EXAMPLES,
  ...ACP_SESSIONS_EXAMPLES,
  ...ORDERS_EXAMPLES,
  ...COUPONS_EXAMPLES,
  ...TOKENS_EXAMPLES,
  ...LICENSES_EXAMPLES,
  ...WEBHOOKS_EXAMPLES,
  ...ADMIN_EXAMPLES,
  ...SUBSCRIPTIONS_EXAMPLES,
  ...AGENT_PLATFORM_EXAMPLES,
  ...REVIEWS_EXAMPLES,
  ...BUYER_EXAMPLES,
  ...DASHBOARD_EXAMPLES,
  ...FORM_EXAMPLES,
  getHealth: { ok: () => ({}), error: () => ({ method: "DELETE", status: 405 }) },
  listListings: { ok: () => ({ query: { category: "audio-plugins", limit: "2" } }), error: () => ({ query: { limit: "999" }, status: 400 }) },
  getProduct: { ok: () => ({ params: { id: fx.productId } }), error: () => ({ params: { id: "no-such-product" }, status: 404 }) },
  listCategories: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  getCatalog: { ok: () => ({ query: { page: "1" } }), error: () => ({ query: { sort: "sideways" }, status: 400 }) },
  getTerms: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  getDiscovery: { ok: () => ({}), error: () => ({ method: "PUT", status: 405 }) },
  getToolManifest: { ok: () => ({}), error: () => ({ method: "PATCH", status: 405 }) },
  validateLicense: {
    ok: () => ({ body: { license_key: fx.key, machine_fingerprint: fx.machine, plugin_id: fx.pluginId } }),
    error: () => ({ body: { license_key: "not a key", machine_fingerprint: fx.machine, plugin_id: fx.pluginId }, status: 400 }),
  },
  activateLicense: {
    ok: () => ({ body: { license_key: fx.key, machine_fingerprint: fingerprint(), plugin_id: fx.pluginId } }),
    error: () => ({ body: { license_key: fx.key, machine_fingerprint: fx.machine }, status: 400 }),
  },
  deactivateLicense: {
    ok: () => ({ body: { license_key: fx.key, machine_fingerprint: fingerprint() } }),
    error: () => ({ raw: "{not json", status: 400 }),
  },
  checkLicenseStatus: {
    ok: () => ({ body: { license_key: fx.key, plugin_id: fx.pluginId } }),
    error: () => ({ body: { license_key: fx.key }, status: 400 }),
  },
  startTrial: {
    ok: () => ({ body: { product_id: fx.trialProductId, buyer_email: `trial-${run}@example.com` } }),
    error: () => ({ body: { product_id: "no-such-product", buyer_email: `trial-${run}@example.com` }, status: 404 }),
  },
  getLicenseFile: {
    ok: () => ({ query: { key: fx.key, fingerprint: fx.machine } }),
    error: () => ({ query: { key: fx.key, fingerprint: fingerprint("never-activated") }, status: 409 }),
  },
  getReceipt: { ok: () => ({ query: { key: fx.key } }), error: () => ({ query: { key: "AAAA-AAAA-AAAA-AAAA" }, status: 404 }) },
  verifyReceipt: {
    ok: () => ({ body: { receipt: { version: 1 }, signature: "00" } }),
    error: () => ({ body: { signature: 42 }, status: 400 }),
  },
  getLicenseCredential: { ok: () => ({ query: { key: fx.key } }), error: () => ({ query: { key: "bad" }, status: 400 }) },
  getRevocationStatusList: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  getDidDocument: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  getProtectedResourceMetadata: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  getMcpProtectedResourceMetadata: { ok: () => ({}), error: () => ({ method: "POST", status: 405 }) },
  createCheckout: {
    ok: () => ({ body: { product_id: fx.productId, buyer_email: `walk-${run}@example.com`, agent_id: "registry-walk" } }),
    error: () => ({ body: { product_id: fx.productId, buyer_email: "nobody" }, status: 400 }),
  },
  getCheckoutStatus: {
    ok: () => ({ params: { session_id: fx.session } }),
    error: () => ({ params: { session_id: "cs_000000000000000000000000" }, status: 404 }),
  },
  stripeWebhook: {
    ok: () => {
      const raw = JSON.stringify({ id: `evt_walk_${run}`, object: "event", type: "customer.created", created: 0, data: { object: {} } });
      return { raw, env: STRIPE_ON, headers: { "stripe-signature": signer.webhooks.generateTestHeaderString({ payload: raw, secret: SECRET }) } };
    },
    error: () => ({ raw: JSON.stringify({ id: "evt_x", type: "x" }), env: STRIPE_ON, headers: { "stripe-signature": "t=1,v1=00" }, status: 400 }),
  },
  listSellerProducts: { ok: () => ({ headers: { cookie: fx.cookie } }), error: () => ({ status: 401 }) },
  getSalesSummary: {
    ok: () => ({ headers: { cookie: fx.cookie }, query: { days: "7" } }),
    error: () => ({ headers: { cookie: fx.cookie }, query: { days: "0" }, status: 400 }),
  },
  createSellerProduct: {
    ok: () => ({ headers: { cookie: fx.cookie }, body: productBody(`Walk Tool ${run}`, `com.walk.created${run}`) }),
    error: () => ({
      headers: { cookie: fx.cookie, origin: "https://evil.example" },
      body: productBody(`Walk Evil ${run}`, `com.walk.evil${run}`),
      status: 403,
    }),
  },
  publishSellerProduct: {
    ok: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.sellerProduct } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.productId }, status: 404 }),
  },
  getSellerProduct: {
    ok: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.sellerProduct } }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.productId }, status: 404 }),
  },
  updateSellerProduct: {
    ok: () => ({
      headers: { cookie: fx.cookie },
      params: { id: fx.sellerProduct },
      body: productBody(`Walk Renamed ${run}`, `com.walk.owned${run}`),
    }),
    error: () => ({ headers: { cookie: fx.cookie }, params: { id: fx.sellerProduct }, body: { name: "x" }, status: 400 }),
  },
  getPayoutAccount: { ok: () => ({ headers: { cookie: fx.cookie } }), error: () => ({ status: 401 }) },
  connectPayoutAccount: {
    ok: () => ({ headers: { cookie: fx.cookie }, body: { country: "DE" } }),
    error: () => ({ headers: { cookie: fx.cookie }, body: { country: "Germany" }, status: 400 }),
  },
  payoutDashboardLink: {
    ok: () => ({ headers: { cookie: payoutFx.cookie }, env: { ...STRIPE_ON, STRIPE_API_BASE: payoutFx.base } }),
    error: () => ({ headers: { cookie: fx.cookie }, status: 409 }),
  },
  generateLicenseIntegration: {
    ok: () => ({ body: { language: "python", app_id: "com.example.app" } }),
    error: () => ({ body: { language: "cobol" }, status: 400 }),
  },
  explainLicensing: { ok: () => ({ body: { topic: "trial_keys" } }), error: () => ({ body: {}, status: 400 }) },
  generateServerConfig: {
    ok: () => ({ body: { target: "docker", domain: "licenses.example.com" } }),
    error: () => ({ body: { target: "mainframe" }, status: 400 }),
  },
  generateTestLicenseKey: { ok: () => ({ body: { prefix: "AB" } }), error: () => ({ body: { prefix: "TOO-LONG" }, status: 400 }) },
};

interface Reply {
  status: number;
  contentType: string;
  text: string;
  /** A redirect's Location. */
  location: string | null;
}

function urlOf(op: Operation, c: Call): string {
  let path = op.http!.path;
  for (const [k, v] of Object.entries(c.params ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const qs = new URLSearchParams(c.query ?? {}).toString();
  return qs ? `${path}?${qs}` : path;
}

async function rest(op: Operation, c: Call): Promise<Reply> {
  if (!c.env) return restCall(op, c);
  const before = Object.fromEntries(Object.keys(c.env).map((k) => [k, process.env[k]]));
  setLimits(c.env);
  try {
    return await restCall(op, c);
  } finally {
    for (const [k, v] of Object.entries(before)) if (v === undefined) Reflect.deleteProperty(process.env, k);
    setLimits(Object.fromEntries(Object.entries(before).filter(([, v]) => v !== undefined)) as Record<string, string>);
  }
}

async function restCall(op: Operation, c: Call): Promise<Reply> {
  const method = c.method ?? op.http!.method;
  const body = c.raw ?? (c.body !== undefined ? JSON.stringify(c.body) : undefined);
  const headers = { "content-type": "application/json", [CLIENT_ADDRESS_HEADER]: "198.51.100.1", ...c.headers };
  if (op.http!.lean) {
    const r = await fetch(lean.base + urlOf(op, c), { method, headers, body });
    return { status: r.status, contentType: r.headers.get("content-type") ?? "", text: await r.text(), location: r.headers.get("location") };
  }
  const handler = restRoutes(op.http!.path)[method as "GET"];
  const r = await call(handler, urlOf(op, c), { method, headers, body, params: c.params });
  return { status: r.status, contentType: r.headers.get("content-type") ?? "", text: r.text, location: r.headers.get("location") };
}

let rpcId = 0;
async function mcp(messages: unknown, client = "198.51.100.2"): Promise<{ status: number; json: any }> {
  const request = new Request("http://localhost:3000/api/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: client },
    body: JSON.stringify(messages),
  });
  const response = await mcpPost(request);
  const text = await response.text();
  if (!text) return { status: response.status, json: undefined };
  // Answers come as JSON, or as server-sent events with one JSON-RPC response each (a batch gets several).
  if (/^\s*[[{]/.test(text)) return { status: response.status, json: JSON.parse(text) };
  const events = text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)) as { id: number });
  return { status: response.status, json: Array.isArray(messages) ? events.sort((a, b) => a.id - b.id) : events[0] };
}
const toolCall = (name: string, args: unknown) => ({ jsonrpc: "2.0", id: ++rpcId, method: "tools/call", params: { name, arguments: args } });

function setLimits(limits: Record<string, string>) {
  Object.assign(process.env, limits);
  resetEnv();
}

beforeAll(async () => {
  lean = await startLeanServer();
  const seeded = await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: false }, orderBy: { id: "asc" } });
  const { license, product } = await newLicense({ productId: seeded.id, maxMachines: 10 });
  fx.productId = product.id;
  fx.pluginId = product.pluginId;
  fx.key = license.key;
  await activateMachine({ license_key: license.key, machine_fingerprint: fx.machine, plugin_id: product.pluginId });
  fx.trialProductId = (await getDb().product.findFirstOrThrow({ where: { status: "active", trialAvailable: true } })).id;
  fx.session = (await createCheckout({ product_id: product.id, buyer_email: `status-${run}@example.com` })).session_id;
  const email = `walk-seller-${run}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Walk Studio ${run}`, website: null, bio: "" });
  fx.sellerProduct = (
    await createProduct(dev.id, productInputSchema.parse(productBody(`Walk Owned ${run}`, `com.walk.owned${run}`)), { publish: true })
  ).id;
  await requestSignIn({ email, purpose: "seller" });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  fx.cookie = `${session.cookieName}=${session.cookieValue}`;
});
beforeAll(async () => {
  const { developerId } = await getDb().product.findUniqueOrThrow({ where: { id: fx.sellerProduct } });
  const audio = async (product: string, tag: string) =>
    (await addProductMedia(developerId, product, { kind: "audio", alt: "", caption: tag, bytes: Buffer.from(`ID3 walk ${tag} ${run}`) })).id;
  mediaFx.a = await audio(fx.sellerProduct, "a");
  mediaFx.c = await audio(fx.sellerProduct, "c");
  mediaFx.product2 = (
    await createProduct(developerId, productInputSchema.parse(productBody(`Walk Media ${run}`, `com.walk.media${run}`)), { publish: true })
  ).id;
  mediaFx.d = await audio(mediaFx.product2, "d");
  mediaFx.e = await audio(mediaFx.product2, "e");
});

afterAll(async () => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) Reflect.deleteProperty(process.env, k);
  Object.assign(process.env, saved);
  resetEnv();
  await lean.close();
  await getDb().webhookDelivery.deleteMany({ where: { kind: "seller", targetId: { in: [hooksFx.endpoint, hooksFx.otherEndpoint] } } });
  await disconnectDb();
});

describe("the operation registry", () => {
  it("has a live example for every operation, and nothing else", () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(
      operations()
        .map((op) => op.id)
        .sort(),
    );
  });

  it("declares every tool the interface names, each once", () => {
    expect(
      tools()
        .map((t) => t.name)
        .sort(),
    ).toEqual(
      [
        "generate_license_integration",
        "explain_licensing",
        "generate_server_config",
        "generate_test_license_key",
        "browse_marketplace",
        "get_product_details",
        "purchase_license",
        "check_license_status",
        "activate_license",
        "deactivate_license",
        "validate_license",
        "get_terms",
        "agent_checkout",
        "get_receipt",
        "verify_receipt",
        "delegate_payment",
        "create_checkout_session",
        "get_checkout_session",
        "update_checkout_session",
        "complete_checkout_session",
        "cancel_checkout_session",
        "get_checkout_status",
        "start_trial",
        "get_license_file",
        "get_license_credential",
        "list_releases",
        "list_product_reviews",
        "review_product",
        "lookup_device_code",
        "device_checkout",
      ].sort(),
    );
  });

  for (const op of operations().filter((o) => o.http)) {
    it(`${op.http!.method} ${op.http!.path} (${op.id}) answers its declared output, and a declared problem`, async () => {
      const example = EXAMPLES[op.id]!;
      const ok = await rest(op, example.ok());
      expect(ok.status, ok.text).toBe(op.http!.status ?? 200);
      // A redirect's output is where it sends the caller.
      const body = op.http!.redirect ? { location: ok.location } : ok.contentType.includes("json") ? JSON.parse(ok.text) : ok.text;
      const parsed = op.output.safeParse(body);
      expect(parsed.success, `${op.id}: ${parsed.error?.message}`).toBe(true);

      const { status, ...bad } = example.error();
      const err = await rest(op, bad);
      expect(err.status, err.text).toBe(status);
      if (op.http!.errorFormat === "acp") {
        // The Agentic Commerce Protocol's endpoints answer its flat Error object instead of a problem document.
        expect(err.contentType).toMatch(/^application\/json/);
        acpErrorSchema.parse(JSON.parse(err.text));
      } else {
        expect(err.contentType).toBe("application/problem+json");
        const problem = problemSchema.parse(JSON.parse(err.text));
        expect(problem.status).toBe(status);
      }
      const declared = new Set([...(op.errors ?? []), 405, 500, 503, ...(op.input ? [400] : []), ...(op.input?.body ? [413, 415] : [])]);
      expect(declared.has(status), `${op.id} answered ${status}, which it does not declare`).toBe(true);
    });
  }

  for (const t of tools()) {
    it(`MCP tool ${t.name} answers the operation's output as structured content, and a tool error for bad arguments`, async () => {
      const example = EXAMPLES[t.operation.id]!;
      const c = example.ok();
      // The tool's arguments: the operation's input, under the tool's own names where the interface fixes them.
      const args = MCP_ARGS[t.name]?.() ?? { ...c.query, ...c.params, ...(c.body as object) };
      const reply = await mcp(toolCall(t.name, args));
      expect(reply.status).toBe(200);
      const result = reply.json.result;
      expect(result.isError ?? false, JSON.stringify(result)).toBe(false);
      expect(result.content[0].type).toBe("text");
      if (t.output) expect(t.output.safeParse(result.structuredContent).success, JSON.stringify(result.structuredContent)).toBe(true);
      // Every argument of the wrong type, or an argument the tool does not take.
      const wrong = Object.fromEntries(Object.keys(t.input.shape).map((k) => [k, []]));
      const bad = await mcp(toolCall(t.name, Object.keys(wrong).length ? wrong : { unexpected: true }));
      expect(bad.json.result?.isError ?? Boolean(bad.json.error)).toBe(true);
    });
  }
});

const MCP_ARGS: Record<string, () => Record<string, unknown>> = {
  browse_marketplace: () => ({ category: "audio-plugins", limit: 2 }),
  get_product_details: () => ({ product_id: fx.productId }),
  list_releases: () => ({ product_id: relFx.product }),
  list_product_reviews: () => ({ product_id: revFx.product, sort: "newest" }),
  review_product: () => ({ product_id: revFx.product, license_key: revFx.key, rating: 4, title: "Walk over MCP" }),
  get_receipt: () => ({ license_key: fx.key }),
  purchase_license: () => ({ product_id: fx.productId, buyer_email: `mcp-${run}@example.com` }),
  get_terms: () => ({}),
  delegate_payment: () => ({ meta: { api_version: "2026-04-17", idempotency_key: randomUUID() }, payload: delegateBody() }),
  create_checkout_session: () => ({ meta: acpMeta(), payload: { line_items: [{ id: acpSessFx.productId }], currency: "usd" } }),
  get_checkout_session: () => ({ meta: { api_version: "2026-04-17" }, id: acpSessFx.open }),
  update_checkout_session: () => ({ meta: acpMeta(), id: acpSessFx.open, payload: { buyer: { email: `acp-walk-${run}@example.com` } } }),
  complete_checkout_session: () => {
    const s = take(acpSessFx.complete);
    return { meta: acpMeta(), id: s.id, payload: { payment_data: acpPayment(s.token) } };
  },
  cancel_checkout_session: () => ({ meta: acpMeta(), id: take(acpSessFx.cancel) }),
  get_license_file: () => ({ license_key: fx.key, machine_fingerprint: fx.machine }),
  get_license_credential: () => ({ license_key: fx.key }),
  // A receipt in the issued shape with a signature that does not match: the tool answers valid: false.
  verify_receipt: () => ({
    receipt: {
      version: 1,
      issuer: "did:web:localhost%3A3000",
      license_key: fx.key,
      product_id: fx.productId,
      product_name: "Walk",
      buyer_email: "walk@example.com",
      max_machines: 1,
      is_active: true,
      issued_at: new Date().toISOString(),
      expires_at: null,
      checked_at: new Date().toISOString(),
    },
    signature: "00",
  }),
};

describe("seller operations", () => {
  it("tell an anonymous caller to sign in before judging the body", async () => {
    const op = operations().find((o) => o.id === "updateSellerProduct")!;
    const r = await rest(op, { params: { id: fx.sellerProduct }, body: { name: "x" } });
    expect(r.status, r.text).toBe(401);
    expect(JSON.parse(r.text)).toMatchObject({ code: "unauthorized" });
  });
});

describe("MCP calls count against the same limits as REST", () => {
  it("validate_license: a batch stops at the per-address limit, and REST from that address is refused too", async () => {
    rateLimiter().reset();
    // One trusted proxy: the lean path then takes the client from X-Forwarded-For, as behind a load balancer.
    setLimits({ RATE_LIMIT_VALIDATE_PER_MIN: "5", TRUST_PROXY: "1" });
    try {
      const client = `203.0.113.${Math.floor(Math.random() * 200) + 1}`;
      const args = { license_key: fx.key, machine_fingerprint: fx.machine, plugin_id: fx.pluginId };
      const batch = Array.from({ length: MCP_MAX_BATCH }, () => toolCall("validate_license", args));
      const reply = await mcp(batch, client);
      expect(reply.status).toBe(200);
      const results = (reply.json as Array<{ result: { isError?: boolean; content: Array<{ text: string }> } }>).map((m) => m.result);
      expect(results.filter((r) => !r.isError)).toHaveLength(5);
      const refused = results.filter((r) => r.isError);
      expect(refused).toHaveLength(MCP_MAX_BATCH - 5);
      for (const r of refused) expect(r.content[0]!.text).toMatch(/^rate_limited: /);
      const post = (from: string) =>
        fetch(`${lean.base}/validate`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": from },
          body: JSON.stringify(args),
        });
      const sameClient = await post(client);
      expect(sameClient.status).toBe(429);
      expect(Number(sameClient.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await post("203.0.113.249")).status).toBe(200);
    } finally {
      setLimits({ RATE_LIMIT_VALIDATE_PER_MIN: "1000000", TRUST_PROXY: "0" });
      rateLimiter().reset();
    }
  });

  it("the per-key limit holds across transports: REST calls and MCP calls for one key share one window", async () => {
    rateLimiter().reset();
    setLimits({ RATE_LIMIT_PER_KEY_PER_MIN: "4" });
    try {
      const args = { license_key: fx.key, machine_fingerprint: fx.machine, plugin_id: fx.pluginId };
      for (let i = 0; i < 2; i++)
        expect(
          (await fetch(`${lean.base}/validate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(args) }))
            .status,
        ).toBe(200);
      const reply = await mcp(
        [
          toolCall("validate_license", args),
          toolCall("check_license_status", { license_key: fx.key, plugin_id: fx.pluginId }),
          toolCall("validate_license", args),
        ],
        "203.0.113.250",
      );
      const results = (reply.json as Array<{ result: { isError?: boolean } }>).map((m) => m.result.isError ?? false);
      expect(results).toEqual([false, false, true]);
      const rest5 = await fetch(`${lean.base}/validate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(args),
      });
      expect(rest5.status).toBe(429);
      expect(Number(rest5.headers.get("retry-after"))).toBeGreaterThan(0);
    } finally {
      setLimits({ RATE_LIMIT_PER_KEY_PER_MIN: "1000000" });
      rateLimiter().reset();
    }
  });

  it("agent_checkout: batched calls create no more orders than the REST limit allows", async () => {
    rateLimiter().reset();
    setLimits({ RATE_LIMIT_CHECKOUT_PER_MIN: "5" });
    try {
      const client = "203.0.113.251";
      const email = `batch-${run}@example.com`;
      const args = { product_id: fx.productId, buyer_email: email, agent_id: "batch-agent" };
      const before = await getDb().order.count({ where: { buyerEmail: email } });
      const tooBig = await mcp(
        Array.from({ length: 40 }, () => toolCall("agent_checkout", args)),
        client,
      );
      expect(tooBig.status).toBe(400);
      expect(await getDb().order.count({ where: { buyerEmail: email } })).toBe(before);
      for (let i = 0; i < 4; i++)
        await mcp(
          Array.from({ length: MCP_MAX_BATCH }, () => toolCall("agent_checkout", args)),
          client,
        );
      expect(await getDb().order.count({ where: { buyerEmail: email } })).toBe(before + 5);
    } finally {
      setLimits({ RATE_LIMIT_CHECKOUT_PER_MIN: "1000000" });
      rateLimiter().reset();
    }
  });

  it("a batch larger than the cap is refused whole with a problem document", async () => {
    const reply = await mcp(Array.from({ length: MCP_MAX_BATCH + 1 }, () => toolCall("get_terms", {})));
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ status: 400, code: "batch_too_large" });
    expect(toolByName("get_terms")).toBeDefined();
  });
});

/** Every string leaf of a value, as [path, set(newValue)] pairs. */
function stringLeaves(value: unknown, path: string[] = []): Array<{ path: string; set: (v: string) => unknown }> {
  if (typeof value === "string") return [{ path: path.join("."), set: (v) => v }];
  if (value === null || typeof value !== "object") return [];
  const out: Array<{ path: string; set: (v: string) => unknown }> = [];
  const entries = Array.isArray(value) ? value.map((x, i) => [i, x] as const) : Object.entries(value);
  for (const [k, child] of entries) {
    for (const leaf of stringLeaves(child, [...path, String(k)])) {
      out.push({
        path: leaf.path,
        set: (v) => {
          const copy: any = Array.isArray(value) ? [...value] : { ...value };
          copy[k] = leaf.set(v);
          return copy;
        },
      });
    }
  }
  return out;
}

describe("control characters are refused in every string, on every transport", () => {
  // PostgreSQL cannot store NUL in text: before this check, `?search=%00` answered 500 there.
  for (const op of operations().filter((o) => o.http && !o.http.rawBody && o.input)) {
    it(`${op.http!.method} ${op.http!.path} (${op.id})`, async () => {
      const c = EXAMPLES[op.id]!.ok();
      const cases: Array<{ where: string; call: Call }> = [];
      for (const part of ["query", "params", "body"] as const) {
        for (const leaf of stringLeaves(c[part])) {
          for (const bad of part === "body" ? ["\u0000", "\u001b", "\ud800"] : ["\u0000", "\n", "\u0085"]) {
            const original = leaf.path.split(".").reduce<any>((v, k) => v[k], c[part]) as string;
            cases.push({ where: `${part}.${leaf.path}`, call: { ...c, [part]: leaf.set(`${original}${bad}`) } });
          }
        }
      }
      // Operations whose input has no string (a page number only, say) have nothing to refuse here.
      expect(cases.length + (stringLeaves(c).length === 0 ? 1 : 0)).toBeGreaterThan(0);
      for (const { where, call: bad } of cases) {
        const r = await rest(op, bad);
        expect(r.status, `${where}: ${r.text}`).toBe(400);
        // ACP endpoints answer the protocol's Error object (message), the others a problem document (detail).
        const text =
          op.http!.errorFormat === "acp"
            ? { type: "invalid_request", message: expect.stringContaining("control characters") }
            : { status: 400, detail: expect.stringContaining("control characters") };
        expect(JSON.parse(r.text), where).toMatchObject(text);
      }
    });
  }

  for (const t of tools()) {
    it(`MCP tool ${t.name}`, async () => {
      const c = EXAMPLES[t.operation.id]!.ok();
      const args = MCP_ARGS[t.name]?.() ?? { ...c.query, ...c.params, ...(c.body as object) };
      for (const leaf of stringLeaves(args)) {
        const reply = await mcp(toolCall(t.name, leaf.set("bad\u0000value")));
        expect(reply.status).toBe(200);
        const result = reply.json.result ?? {};
        expect(result.isError ?? Boolean(reply.json.error), `${t.name}.${leaf.path}`).toBe(true);
        if (result.content) expect(JSON.stringify(result.content), `${t.name}.${leaf.path}`).toMatch(/control characters|Invalid/);
      }
    });
  }

  it("the storefront's search box turns them into spaces rather than failing", async () => {
    const { parseBrowseQuery } = await import("@/components/store/browse-query");
    expect(parseBrowseQuery({ q: "tape\u0000warmth\ud800" }).q).toBe("tape warmth\ufffd");
  });
});
