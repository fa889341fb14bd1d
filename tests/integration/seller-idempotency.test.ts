import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as couponsRoute } from "@/app/api/v1/coupons/route";
import { POST as licensesRoute } from "@/app/api/v1/licenses/route";
import { POST as refundRoute } from "@/app/api/v1/orders/[id]/refunds/route";
import { POST as releasesRoute } from "@/app/api/v1/products/[id]/releases/route";
import { POST as productsRoute } from "@/app/api/v1/products/route";
import { POST as tokensRoute } from "@/app/api/v1/tokens/route";
import { POST as webhooksRoute } from "@/app/api/v1/webhooks/route";
import { POST as checkoutLinksRoute } from "@/app/api/v1/checkout-links/route";
import { POST as upgradeOffersRoute } from "@/app/api/v1/upgrade-offers/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { operations } from "@/lib/operations/index";
import { rateLimiter } from "@/lib/http/rate-limit";
import { call, expectProblem } from "../helpers/http";
import { createTestProduct, sellerCookie, sellingDeveloper, testProductBody } from "../helpers/sellers";

/**
 * Every creating or money-moving POST of the seller API, sent twice with one Idempotency-Key as a client retrying
 * after a lost answer would: one effect each, the second answer the first one replayed (Idempotent-Replayed: true);
 * the same key with another body is 422 idempotency_conflict and changes nothing. The refund is the case that paid
 * twice before keys were honoured on every such POST.
 */

const run = randomUUID().slice(0, 8);
const email = `idem-${run}@example.com`;
let developerId = "";
let cookie = "";
let productId = "";
/** Two more products of the seller: what an upgrade offer leads to. */
const upgradeTargets: string[] = [];
const saved = process.env.WEBHOOK_ALLOW_PRIVATE;

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_PRIVATE = "on";
  resetEnv();
  developerId = (await sellingDeveloper(email, { name: `Idempotent Studio ${run}`, website: null, bio: "" })).id;
  productId = (await createTestProduct(developerId, `Idempotent ${run}`, `com.idem.app${run}`)).id;
  for (const n of ["pro", "max"]) upgradeTargets.push((await createTestProduct(developerId, `Idempotent ${n} ${run}`, `com.idem.${n}${run}`)).id);
  cookie = await sellerCookie(email);
});

afterAll(async () => {
  if (saved === undefined) delete process.env.WEBHOOK_ALLOW_PRIVATE;
  else process.env.WEBHOOK_ALLOW_PRIVATE = saved;
  resetEnv();
  await disconnectDb();
});

type Route = Parameters<typeof call>[0];

interface Case {
  name: string;
  route: Route;
  path: () => string;
  params?: () => Record<string, string>;
  body: () => Record<string, unknown>;
  other: () => Record<string, unknown>;
  /** Rows that the call creates, counted before and after. */
  count: () => Promise<number>;
}

const db = () => getDb();
let paidOrderId = "";

const CASES: Case[] = [
  {
    name: "POST /api/v1/products",
    route: productsRoute,
    path: () => "/api/v1/products",
    body: () => testProductBody(`Retried ${run}`, `com.idem.retried${run}`),
    other: () => testProductBody(`Other ${run}`, `com.idem.other${run}`),
    count: () => db().product.count({ where: { developerId } }),
  },
  {
    name: "POST /api/v1/tokens",
    route: tokensRoute,
    path: () => "/api/v1/tokens",
    body: () => ({ name: "CI", scopes: ["read"] }),
    other: () => ({ name: "CI two", scopes: ["read"] }),
    count: () => db().sellerToken.count({ where: { developerId } }),
  },
  {
    name: "POST /api/v1/licenses",
    route: licensesRoute,
    path: () => "/api/v1/licenses",
    body: () => ({ product_id: productId, buyer_email: `gift-${run}@example.com` }),
    other: () => ({ product_id: productId, buyer_email: `gift-other-${run}@example.com` }),
    count: () => db().license.count({ where: { productId } }),
  },
  {
    name: "POST /api/v1/webhooks",
    route: webhooksRoute,
    path: () => "/api/v1/webhooks",
    body: () => ({ url: "http://127.0.0.1:9/hook", description: "retried" }),
    other: () => ({ url: "http://127.0.0.1:9/other", description: "other" }),
    count: () => db().sellerWebhookEndpoint.count({ where: { developerId } }),
  },
  {
    name: "POST /api/v1/products/{id}/releases",
    route: releasesRoute,
    path: () => `/api/v1/products/${productId}/releases`,
    params: () => ({ id: productId }),
    body: () => ({ version: "1.0.0" }),
    other: () => ({ version: "1.0.1" }),
    count: () => db().release.count({ where: { productId } }),
  },
  {
    name: "POST /api/v1/coupons",
    route: couponsRoute,
    path: () => "/api/v1/coupons",
    body: () => ({ code: `RETRY${run.toUpperCase()}`, kind: "percent", percent_off: 10 }),
    other: () => ({ code: `OTHER${run.toUpperCase()}`, kind: "percent", percent_off: 20 }),
    count: () => db().coupon.count({ where: { developerId } }),
  },
  {
    name: "POST /api/v1/checkout-links",
    route: checkoutLinksRoute,
    path: () => "/api/v1/checkout-links",
    body: () => ({ product_id: productId, name: "Retried link", slug: `retry-${run}` }),
    other: () => ({ product_id: productId, name: "Another link", slug: `other-${run}` }),
    count: () => db().checkoutLink.count({ where: { developerId } }),
  },
  {
    name: "POST /api/v1/upgrade-offers",
    route: upgradeOffersRoute,
    path: () => "/api/v1/upgrade-offers",
    body: () => ({ from_product_id: productId, to_product_id: upgradeTargets[0], pricing: "difference" }),
    other: () => ({ from_product_id: productId, to_product_id: upgradeTargets[1], pricing: "difference" }),
    count: () => db().upgradeOffer.count({ where: { developerId } }),
  },
  {
    name: "POST /api/v1/orders/{id}/refunds",
    route: refundRoute,
    path: () => `/api/v1/orders/${paidOrderId}/refunds`,
    params: () => ({ id: paidOrderId }),
    body: () => ({ amount_cents: 100, reason: "Retried refund" }),
    other: () => ({ amount_cents: 200, reason: "Another refund" }),
    count: () => db().refund.count({ where: { orderId: paidOrderId } }),
  },
];

describe("the seller API's creating and money-moving POSTs, each sent twice with one Idempotency-Key", () => {
  beforeAll(async () => {
    const { session_id } = await createCheckout({ product_id: productId, buyer_email: `buyer-${run}@example.com` });
    await payTestCheckout(session_id);
    paidOrderId = session_id;
  });

  it("covers every creating POST of the seller API that takes a key", () => {
    const creating = operations()
      .filter((op) => op.http?.method === "POST" && op.http.path.startsWith("/api/v1/") && /^(create|issue|refund)/.test(op.id) && op.idempotency)
      .map((op) => `${op.http!.method} ${op.http!.path}`)
      .sort();
    expect(creating).toEqual(CASES.map((c) => c.name).sort());
  });

  it.each(CASES.map((c) => [c.name, c] as const))("%s: one effect, the retry replayed, another body refused", async (_name, c) => {
    rateLimiter().reset();
    const key = randomUUID();
    const send = (body: Record<string, unknown>, k = key) =>
      call(c.route, c.path(), { method: "POST", json: body, headers: { cookie, "idempotency-key": k }, params: c.params?.() ?? {} });
    const before = await c.count();
    const first = await send(c.body());
    expect(first.status, first.text).toBeLessThan(300);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const second = await send(c.body());
    expect(second.status).toBe(first.status);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.body).toEqual(first.body);
    expect(await c.count()).toBe(before + 1);
    const conflict = await send(c.other());
    expectProblem(conflict, 422, "idempotency_conflict");
    expect(await c.count()).toBe(before + 1);
    // A new key is a new request.
    const fresh = await send(c.other(), randomUUID());
    expect(fresh.status, fresh.text).toBeLessThan(300);
    expect(await c.count()).toBe(before + 2);
  });

  it("pays a retried refund once: one refund row, one e-mail to the buyer", async () => {
    const mails = () => db().emailMessage.count({ where: { to: `buyer-${run}@example.com`, kind: "refund" } });
    const before = { refunds: await db().refund.count({ where: { orderId: paidOrderId } }), mails: await mails() };
    const key = randomUUID();
    const body = { amount_cents: 50, reason: "Twice?" };
    const [a, b] = await Promise.all(
      [0, 1].map(() =>
        call(refundRoute, `/api/v1/orders/${paidOrderId}/refunds`, {
          method: "POST",
          json: body,
          headers: { cookie, "idempotency-key": key },
          params: { id: paidOrderId },
        }),
      ),
    );
    // Racing: one runs, the other is told it is in flight (409) or gets the stored answer.
    const statuses = [a!.status, b!.status].sort();
    expect(statuses[0]).toBe(201);
    expect([201, 409]).toContain(statuses[1]);
    expect(await db().refund.count({ where: { orderId: paidOrderId } })).toBe(before.refunds + 1);
    expect(await mails()).toBe(before.mails + 1);
  });

  it("keeps the answers it replays sealed: a new token's secret or a webhook's signing secret is not in the database", async () => {
    rateLimiter().reset();
    for (const [route, path, body, secretOf] of [
      [tokensRoute, "/api/v1/tokens", { name: "Sealed", scopes: ["read"] }, (b: any) => b.token.token as string],
      [webhooksRoute, "/api/v1/webhooks", { url: "http://127.0.0.1:9/sealed", description: "sealed" }, (b: any) => b.endpoint.secret as string],
    ] as const) {
      const key = randomUUID();
      const send = () => call(route, path, { method: "POST", json: body, headers: { cookie, "idempotency-key": key } });
      const first = await send();
      expect(first.status, first.text).toBeLessThan(300);
      const secret = secretOf(first.body);
      expect(secret.length).toBeGreaterThan(16);
      const stored = await db().idempotencyRecord.findMany({ where: { createdAt: { gte: new Date(Date.now() - 60_000) } } });
      expect(stored.length).toBeGreaterThan(0);
      for (const row of stored) expect(row.response ?? "").not.toContain(secret);
      // The caller holding the key still has its answer back.
      const again = await send();
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(secretOf(again.body)).toBe(secret);
    }
  });
});
