import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as openapi } from "@/app/openapi.json/route";
import { GET as coupons } from "@/app/api/v1/coupons/route";
import { POST as deactivateCoupon } from "@/app/api/v1/coupons/[id]/deactivate/route";
import { GET as order } from "@/app/api/v1/orders/[id]/route";
import { GET as payouts } from "@/app/api/v1/payouts/route";
import { GET as products, POST as createProductRoute } from "@/app/api/v1/products/route";
import { GET as product } from "@/app/api/v1/products/[id]/route";
import { GET as releases, POST as createReleaseRoute } from "@/app/api/v1/products/[id]/releases/route";
import { GET as listTokens, POST as createTokenRoute } from "@/app/api/v1/tokens/route";
import { POST as revokeTokenRoute } from "@/app/api/v1/tokens/[id]/revoke/route";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER, rateLimiter } from "@/lib/http/rate-limit";
import { createRelease } from "@/lib/releases/manage";
import { call, expectProblem } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellerCookie, sellingDeveloper, testProductBody } from "../helpers/sellers";

/**
 * Seller API tokens on the REST routes: who a token is (and is not), what its scopes let it do, that another seller's
 * objects are invisible to it, its own rate limit, and that the token is shown once and stored only as a hash.
 */

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const bearer = (token: string, client = "198.51.100.40") => ({ authorization: `Bearer ${token}`, [CLIENT_ADDRESS_HEADER]: client });

const productBody = (id: string, n: string) => testProductBody(`Token ${n} ${id}`, `com.tokens.${n}${id}`);

interface Seller {
  id: string;
  email: string;
  cookie: string;
  product: string;
  order: string;
  coupon: string;
}

async function newSeller(tag: string): Promise<Seller> {
  const id = unique();
  const email = `tokens-${tag}-${id}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Token Studio ${tag} ${id}`, website: null, bio: "" });
  const p = await createTestProduct(dev.id, `Token ${tag} ${id}`, `com.tokens.${tag}${id}`);
  await createRelease(dev.id, p.id, { version: "1.0.0" });
  const checkout = await createCheckout({ product_id: p.id, buyer_email: `tokens-buyer-${id}@example.com` });
  await payTestCheckout(checkout.session_id);
  const coupon = await getDb().coupon.create({
    data: { developerId: dev.id, code: `TOK${id}`.toUpperCase(), kind: "percent", percentOff: 10, productIds: [] },
  });
  const cookie = await sellerCookie(email);
  return { id: dev.id, email, cookie, product: p.id, order: checkout.session_id, coupon: coupon.id };
}

let a: Seller;
let b: Seller;
beforeAll(async () => {
  [a, b] = await Promise.all([newSeller("a"), newSeller("b")]);
});

describe("a seller API token", () => {
  it("lists its own seller's products, and records when and from where it was last used", async () => {
    const token = await sellerToken(a.id, ["read"]);
    const reply = await call(products, "/api/v1/products", { headers: bearer(token, "198.51.100.41") });
    expect(reply.status, reply.text).toBe(200);
    const ids = (reply.body.products as Array<{ id: string }>).map((p) => p.id);
    expect(ids).toContain(a.product);
    expect(ids).not.toContain(b.product);
    const row = await getDb().sellerToken.findUniqueOrThrow({ where: { tokenHash: sha256(token) } });
    expect(row.lastUsedAt).not.toBeNull();
    expect(row.lastUsedFrom).toBe("198.51.100.41");
  });

  it("that is malformed or unknown is 401 invalid_token, naming where to learn how to authenticate", async () => {
    for (const token of ["ilmsk_short", `ilmsk_${randomBytes(32).toString("base64url")}`]) {
      const reply = await call(products, "/api/v1/products", { headers: bearer(token) });
      expectProblem(reply, 401, "invalid_token");
      const challenge = reply.headers.get("www-authenticate") ?? "";
      expect(challenge).toMatch(/^Bearer /);
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain("/.well-known/oauth-protected-resource");
    }
  });

  it("that was revoked is 401 token_revoked; one that expired is 401 token_expired", async () => {
    const revoked = await sellerToken(a.id, ["read"]);
    await getDb().sellerToken.update({ where: { tokenHash: sha256(revoked) }, data: { revokedAt: new Date() } });
    expectProblem(await call(products, "/api/v1/products", { headers: bearer(revoked) }), 401, "token_revoked");

    const expiring = await sellerToken(a.id, ["read"], { expiresInDays: 30 });
    expect((await call(products, "/api/v1/products", { headers: bearer(expiring) })).status).toBe(200);
    await getDb().sellerToken.update({ where: { tokenHash: sha256(expiring) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expectProblem(await call(products, "/api/v1/products", { headers: bearer(expiring) }), 401, "token_expired");
  });

  it("without the area's scope is 403 insufficient_scope on a write, naming the scope; `read` reads but does not write", async () => {
    const releasesOnly = await sellerToken(a.id, ["releases"]);
    const refused = await call(createProductRoute, "/api/v1/products", {
      method: "POST",
      headers: bearer(releasesOnly),
      json: productBody(unique(), "refused"),
    });
    expectProblem(refused, 403, "insufficient_scope");
    expect(refused.headers.get("www-authenticate")).toContain('scope="products"');
    // Its own area works.
    const made = await call(createReleaseRoute, `/api/v1/products/${a.product}/releases`, {
      method: "POST",
      headers: bearer(releasesOnly),
      json: { version: "1.1.0" },
      params: { id: a.product },
    });
    expect(made.status, made.text).toBe(201);

    const read = await sellerToken(a.id, ["read"]);
    expect((await call(coupons, "/api/v1/coupons", { headers: bearer(read) })).status).toBe(200);
    expect((await call(releases, `/api/v1/products/${a.product}/releases`, { headers: bearer(read), params: { id: a.product } })).status).toBe(200);
    expectProblem(
      await call(createProductRoute, "/api/v1/products", { method: "POST", headers: bearer(read), json: productBody(unique(), "read") }),
      403,
      "insufficient_scope",
    );
    expectProblem(
      await call(deactivateCoupon, `/api/v1/coupons/${a.coupon}/deactivate`, { method: "POST", headers: bearer(read), params: { id: a.coupon } }),
      403,
      "insufficient_scope",
    );
  });

  it("cannot call session-only operations (payouts, token management) whatever its scopes: 403 session_required", async () => {
    const all = await sellerToken(a.id, ["read", "products", "releases", "licenses", "orders", "webhooks"]);
    expectProblem(await call(payouts, "/api/v1/payouts", { headers: bearer(all) }), 403, "session_required");
    expectProblem(await call(listTokens, "/api/v1/tokens", { headers: bearer(all) }), 403, "session_required");
    expectProblem(
      await call(createTokenRoute, "/api/v1/tokens", { method: "POST", headers: bearer(all), json: { name: "Minted", scopes: ["read"] } }),
      403,
      "session_required",
    );
  });

  it("of seller A finds none of seller B's products, orders, coupons or releases (404)", async () => {
    const all = await sellerToken(a.id, ["read", "products", "releases", "orders"]);
    expectProblem(
      await call(product, `/api/v1/products/${b.product}`, { headers: bearer(all), params: { id: b.product } }),
      404,
      "product_not_found",
    );
    expect((await call(order, `/api/v1/orders/${b.order}`, { headers: bearer(all), params: { id: b.order } })).status).toBe(404);
    expect(
      (await call(deactivateCoupon, `/api/v1/coupons/${b.coupon}/deactivate`, { method: "POST", headers: bearer(all), params: { id: b.coupon } }))
        .status,
    ).toBe(404);
    expect((await call(releases, `/api/v1/products/${b.product}/releases`, { headers: bearer(all), params: { id: b.product } })).status).toBe(404);
    const release = await call(createReleaseRoute, `/api/v1/products/${b.product}/releases`, {
      method: "POST",
      headers: bearer(all),
      json: { version: "9.9.9" },
      params: { id: b.product },
    });
    expect(release.status).toBe(404);
    // And B's objects are untouched.
    expect((await getDb().coupon.findUniqueOrThrow({ where: { id: b.coupon } })).active).toBe(true);
    expect(await getDb().release.count({ where: { productId: b.product, version: "9.9.9" } })).toBe(0);
    // While A's own are found.
    expect((await call(order, `/api/v1/orders/${a.order}`, { headers: bearer(all), params: { id: a.order } })).status).toBe(200);
  });

  it("is rate-limited on its own (RATE_LIMIT_SELLER_TOKEN_PER_MIN): the call after the limit is 429 with Retry-After", async () => {
    const token = await sellerToken(a.id, ["read"]);
    const other = await sellerToken(a.id, ["read"]);
    // The windows are aligned to the clock: the clock (Date only; timers run as usual) is held a second into the
    // next window, so the counted calls share it, instead of sleeping past a window's end that is too near.
    vi.useFakeTimers({ toFake: ["Date"], now: (Math.floor(Date.now() / 60_000) + 1) * 60_000 + 1_000 });
    process.env.RATE_LIMIT_SELLER_TOKEN_PER_MIN = "3";
    try {
      const replies = [];
      for (let i = 0; i < 4; i++) replies.push(await call(products, "/api/v1/products", { headers: bearer(token) }));
      expect(replies.slice(0, 3).map((r) => r.status)).toEqual([200, 200, 200]);
      expectProblem(replies[3]!, 429, "rate_limited");
      expect(Number(replies[3]!.headers.get("retry-after"))).toBeGreaterThan(0);
      // Another token of the same seller has its own budget.
      expect((await call(products, "/api/v1/products", { headers: bearer(other) })).status).toBe(200);
    } finally {
      vi.useRealTimers();
      delete process.env.RATE_LIMIT_SELLER_TOKEN_PER_MIN;
      rateLimiter().reset();
    }
  });
});

describe("managing tokens with the dashboard session", () => {
  it("shows the token only in the create answer, stores its hash, and revoking it stops it at once", async () => {
    const session = { cookie: a.cookie, [CLIENT_ADDRESS_HEADER]: "198.51.100.42" };
    const created = await call(createTokenRoute, "/api/v1/tokens", {
      method: "POST",
      headers: session,
      json: { name: "CI pipeline", scopes: ["releases", "read"], expires_in_days: 90 },
    });
    expect(created.status, created.text).toBe(201);
    const view = created.body.token;
    const token: string = view.token;
    expect(token).toMatch(/^ilmsk_[A-Za-z0-9_-]{43}$/);
    expect(view).toMatchObject({ name: "CI pipeline", scopes: ["read", "releases"], status: "active", created_by: a.email, revoked_at: null });
    expect(token.startsWith(view.prefix)).toBe(true);
    expect(Date.parse(view.expires_at) - Date.now()).toBeGreaterThan(89 * 86_400_000);

    const row = await getDb().sellerToken.findUniqueOrThrow({ where: { id: view.id } });
    expect(row.tokenHash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(row)).not.toContain(token.slice(view.prefix.length));

    expect((await call(products, "/api/v1/products", { headers: bearer(token) })).status).toBe(200);
    const listed = await call(listTokens, "/api/v1/tokens", { headers: session });
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(token);
    const mine = (listed.body.tokens as Array<{ id: string; last_used_at: string | null; last_used_from: string | null }>).find(
      (t) => t.id === view.id,
    );
    expect(mine?.last_used_at).not.toBeNull();
    expect(mine?.last_used_from).toBe("198.51.100.40");
    // B's session does not see A's tokens, and cannot revoke them.
    const theirs = await call(listTokens, "/api/v1/tokens", { headers: { cookie: b.cookie } });
    expect((theirs.body.tokens as Array<{ id: string }>).map((t) => t.id)).not.toContain(view.id);
    expectProblem(
      await call(revokeTokenRoute, `/api/v1/tokens/${view.id}/revoke`, { method: "POST", headers: { cookie: b.cookie }, params: { id: view.id } }),
      404,
      "token_not_found",
    );

    const revoked = await call(revokeTokenRoute, `/api/v1/tokens/${view.id}/revoke`, { method: "POST", headers: session, params: { id: view.id } });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.token).toMatchObject({ id: view.id, status: "revoked" });
    expect(revoked.text).not.toContain(token);
    expectProblem(await call(products, "/api/v1/products", { headers: bearer(token) }), 401, "token_revoked");
    // Idempotent.
    expect(
      (await call(revokeTokenRoute, `/api/v1/tokens/${view.id}/revoke`, { method: "POST", headers: session, params: { id: view.id } })).status,
    ).toBe(200);
  });

  it("refuses bad input with 400, and a cross-site form post with 403", async () => {
    for (const json of [
      { name: "", scopes: ["read"] },
      { name: "x", scopes: [] },
      { name: "x", scopes: ["admin"] },
      { name: "x", scopes: ["read", "read"] },
      { name: "x", scopes: ["read"], expires_in_days: 0 },
      { name: "line\nbreak", scopes: ["read"] },
    ])
      expectProblem(await call(createTokenRoute, "/api/v1/tokens", { method: "POST", headers: { cookie: a.cookie }, json }), 400, "invalid_body");
    expectProblem(
      await call(createTokenRoute, "/api/v1/tokens", {
        method: "POST",
        headers: { cookie: a.cookie, origin: "https://evil.example" },
        json: { name: "x", scopes: ["read"] },
      }),
      403,
      "cross_site_request",
    );
  });

  // Inside Next a request's URL is the address Next listens on (http://localhost:3000 here), whatever Host it named:
  // the same-origin check compares with BASE_URL's origin and the Host the front door admitted, never with that.
  it("refuses a session write whose Origin is the internal address when the request named the public host", async () => {
    const saved = process.env.BASE_URL;
    process.env.BASE_URL = "https://shop.example";
    resetEnv();
    try {
      const send = (headers: Record<string, string>) =>
        call(createTokenRoute, "/api/v1/tokens", {
          method: "POST",
          headers: { cookie: a.cookie, host: "shop.example", ...headers },
          json: { name: "origin", scopes: ["read"] },
        });
      expectProblem(await send({ origin: "http://localhost:3000" }), 403, "cross_site_request");
      expect((await send({ origin: "https://shop.example" })).status).toBe(201);
    } finally {
      if (saved === undefined) delete process.env.BASE_URL;
      else process.env.BASE_URL = saved;
      resetEnv();
    }
  });
});

describe("/openapi.json", () => {
  it("describes the seller token scheme, and each seller operation's security names its scope", async () => {
    const doc = (await call(openapi, "/openapi.json")).body;
    expect(doc.components.securitySchemes.sellerToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/api/v1/products"].post.security).toEqual([{ sellerToken: ["products"] }, { sellerSession: [] }]);
    expect(doc.paths["/api/v1/products"].get.security).toEqual([{ sellerToken: ["read", "products"] }, { sellerSession: [] }]);
    expect(doc.paths["/api/v1/products/{id}/releases/{version}/publish"].post.security[0]).toEqual({ sellerToken: ["releases"] });
    // Token management is the dashboard session's only.
    expect(doc.paths["/api/v1/tokens"].post.security).toEqual([{ sellerSession: [] }]);
    expect(doc.paths["/api/v1/tokens"].post.operationId).toBe("createSellerToken");
  });
});
