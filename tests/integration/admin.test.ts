import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as mcpPost } from "@/app/api/mcp/route";
import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { payTestCheckout } from "@/lib/checkout/test-payment";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { createProduct, setProductStatus } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { recordEntries } from "@/lib/ledger/ledger";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { licenseCache } from "@/lib/licensing/license-state";
import { validateLicense } from "@/lib/licensing/validate-license";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { ADMIN } from "@/lib/operations/admin";
import type { Operation } from "@/lib/operations/define";
import { restRoutes } from "@/lib/transports/rest";
import { call, expectProblem, type Reply } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { SELLER_TRUST, sellingDeveloper } from "../helpers/sellers";

/**
 * The operator's console API: only a session whose address ADMIN_EMAILS lists gets anything; everyone else the same
 * 404 problem an unknown path gets. Suspensions hide listings everywhere and stop publishing while licenses keep
 * validating; reinstatement lists exactly what the suspension hid; removals carry a reason the seller sees; every
 * action leaves an audit entry; the overview is the ledger's sums.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ADMIN_EMAIL = `ops-${run}@example.com`;
const saved = process.env.ADMIN_EMAILS;
const cookies = { admin: "", seller: "", buyer: "", other: "" };
const fx = { sellerId: "", listed: "", unlisted: "", removed: "", orderId: "", key: "", pluginId: "", machine: fingerprint(`admin-${run}`) };

async function signIn(email: string, purpose: "seller" | "buyer"): Promise<string> {
  await requestSignIn({ email, purpose });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const s = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? "");
  return `${s.cookieName}=${s.cookieValue}`;
}

const product = (name: string, pluginId: string, priceCents = 1500) =>
  productInputSchema.parse({
    name,
    description: "A product made by the operator console test, long enough to be valid.",
    plugin_id: pluginId,
    price_cents: priceCents,
    category: "dev-tools",
    max_machines: 2,
    seat_model: "per-machine",
    platforms: ["linux"],
    download_url: "https://example.com/download.zip",
    icon_url: "/icons/tape-warmth.svg",
  });

const opById = (id: string): Operation => {
  const op = ADMIN.find((o) => o.id === id);
  if (!op) throw new Error(`no admin operation ${id}`);
  return op;
};

async function rest(
  id: string,
  opts: { cookie?: string; params?: Record<string, string>; query?: Record<string, string>; body?: unknown; origin?: string } = {},
): Promise<Reply> {
  const op = opById(id);
  const http = op.http;
  if (!http) throw new Error(`${id} has no HTTP route`);
  let path = http.path;
  for (const [k, v] of Object.entries(opts.params ?? {})) path = path.replace(`{${k}}`, encodeURIComponent(v));
  const qs = new URLSearchParams(opts.query ?? {}).toString();
  const headers: Record<string, string> = { [CLIENT_ADDRESS_HEADER]: "198.51.100.7" };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  const handler = restRoutes(http.path)[http.method];
  return call(handler, qs ? `${path}?${qs}` : path, {
    method: http.method,
    headers,
    params: opts.params,
    ...(http.method === "GET" ? {} : { json: opts.body ?? {} }),
  });
}

async function mcp(name: string, args: unknown): Promise<{ isError?: boolean; structuredContent?: any }> {
  const response = await mcpPost(
    new Request("http://localhost:3000/api/mcp", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", [CLIENT_ADDRESS_HEADER]: "198.51.100.8" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    }),
  );
  const text = await response.text();
  const json = /^\s*\{/.test(text)
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split("\n")
          .find((l) => l.startsWith("data:"))
          ?.slice(5) ?? "{}",
      );
  return json.result;
}

const listings = async (search: string) => {
  const r = await call(restRoutes("/api/marketplace/listings").GET, `/api/marketplace/listings?search=${encodeURIComponent(search)}&limit=50`);
  expect(r.status, r.text).toBe(200);
  return (r.body.products as Array<{ id: string }>).map((p) => p.id);
};

const status = async (id: string) => (await getDb().product.findUniqueOrThrow({ where: { id } })).status;

beforeAll(async () => {
  process.env.ADMIN_EMAILS = ` Someone@Example.com , ${ADMIN_EMAIL.toUpperCase()} `;
  resetEnv();
  cookies.admin = await signIn(ADMIN_EMAIL, "seller");
  const sellerEmail = `console-seller-${run}@example.com`;
  const dev = await sellingDeveloper(sellerEmail, { name: `Console Studio ${run}`, website: null, bio: "" });
  fx.sellerId = dev.id;
  cookies.seller = await signIn(sellerEmail, "seller");
  cookies.buyer = await signIn(`console-buyer-${run}@example.com`, "buyer");
  // A seller with no business here but a profile: still nobody to the console.
  await createDeveloperProfile(`console-other-${run}@example.com`, { ...SELLER_TRUST, name: `Other Studio ${run}`, website: null, bio: "" });
  cookies.other = await signIn(`console-other-${run}@example.com`, "seller");

  fx.listed = (await createProduct(dev.id, product(`Consolelisted ${run}`, `com.console.listed${run}`), { publish: true })).id;
  fx.unlisted = (await createProduct(dev.id, product(`Consoleunlisted ${run}`, `com.console.unlisted${run}`), { publish: true })).id;
  fx.removed = (await createProduct(dev.id, product(`Consoleremoved ${run}`, `com.console.removed${run}`), { publish: true })).id;
  await setProductStatus(dev.id, fx.unlisted, "unlisted");

  const { session_id } = await createCheckout({ product_id: fx.listed, buyer_email: `console-buyer-${run}@example.com` });
  await payTestCheckout(session_id);
  fx.orderId = session_id;
  const license = await getDb().license.findUniqueOrThrow({ where: { orderId: session_id }, include: { product: true } });
  fx.key = license.key;
  fx.pluginId = license.product.pluginId;
  await activateMachine({ license_key: fx.key, machine_fingerprint: fx.machine, plugin_id: fx.pluginId });
});

afterAll(async () => {
  if (saved === undefined) delete process.env.ADMIN_EMAILS;
  else process.env.ADMIN_EMAILS = saved;
  resetEnv();
  await disconnectDb();
});

describe("who may use the console", () => {
  const callers = ["anonymous", "a seller", "a seller of another shop", "a buyer"] as const;
  const cookieOf = (who: (typeof callers)[number]) =>
    ({ anonymous: undefined, "a seller": cookies.seller, "a seller of another shop": cookies.other, "a buyer": cookies.buyer })[who];

  for (const op of ADMIN) {
    it(`${op.http?.method ?? ""} ${op.http?.path ?? ""} (${op.id}) is a 404 problem for anyone but the operator`, async () => {
      for (const who of callers) {
        const r = await rest(op.id, { cookie: cookieOf(who), params: { id: fx.orderId }, body: { reason: "bad seller" } });
        expectProblem(r, 404, "route_not_found");
        expect(r.body.detail, who).not.toMatch(/admin|operator|sign in/i);
      }
    });
  }

  it("the operator's own session is nobody once ADMIN_EMAILS no longer lists it, and nobody at all when it is unset", async () => {
    const before = process.env.ADMIN_EMAILS;
    try {
      process.env.ADMIN_EMAILS = "someone-else@example.com";
      resetEnv();
      expectProblem(await rest("getAdminOverview", { cookie: cookies.admin }), 404, "route_not_found");
      delete process.env.ADMIN_EMAILS;
      resetEnv();
      expectProblem(await rest("getAdminOverview", { cookie: cookies.admin }), 404, "route_not_found");
    } finally {
      process.env.ADMIN_EMAILS = before;
      resetEnv();
    }
    expect((await rest("getAdminOverview", { cookie: cookies.admin })).status).toBe(200);
  });

  it("a buyer's session of a listed address works too (either sign-in proves the address), and writes need our own origin", async () => {
    const viaBuyer = await signIn(ADMIN_EMAIL, "buyer");
    expect((await rest("listAdminSellers", { cookie: viaBuyer })).status).toBe(200);
    const r = await rest("suspendSeller", {
      cookie: cookies.admin,
      params: { id: fx.sellerId },
      body: { reason: "cross-site" },
      origin: "https://evil.example",
    });
    expectProblem(r, 403, "cross_site_request");
    expect((await getDb().developer.findUniqueOrThrow({ where: { id: fx.sellerId } })).suspendedAt).toBeNull();
  });

  it("lists sellers, products, orders and payment events by search", async () => {
    const sellers = await rest("listAdminSellers", { cookie: cookies.admin, query: { q: `console studio ${run}` } });
    expect(sellers.status, sellers.text).toBe(200);
    expect(sellers.body.sellers.map((s: { id: string }) => s.id)).toEqual([fx.sellerId]);
    expect(sellers.body.sellers[0].products).toEqual({ active: 2, unlisted: 1 });
    const products = await rest("listAdminProducts", { cookie: cookies.admin, query: { seller_id: fx.sellerId, status: "unlisted" } });
    expect(products.body.products.map((p: { id: string }) => p.id)).toEqual([fx.unlisted]);
    for (const q of [fx.orderId, `console-buyer-${run}`, `Consolelisted ${run}`, `console-seller-${run}@example.com`]) {
      const orders = await rest("searchAdminOrders", { cookie: cookies.admin, query: { q } });
      expect(orders.status, orders.text).toBe(200);
      expect(
        orders.body.orders.map((o: { id: string }) => o.id),
        q,
      ).toContain(fx.orderId);
    }
    const detail = await rest("getAdminOrder", { cookie: cookies.admin, params: { id: fx.orderId } });
    expect(detail.body.order).toMatchObject({ id: fx.orderId, status: "paid", license: { is_active: true } });
    expect(detail.body.order.ledger.map((e: { kind: string }) => e.kind)).toContain("sale");
    const events = await rest("listPaymentEvents", { cookie: cookies.admin, query: { order_id: fx.orderId } });
    expect(events.body.events.length).toBeGreaterThan(0);
    expectProblem(await rest("getAdminOrder", { cookie: cookies.admin, params: { id: "cs_nothing_here" } }), 404, "order_not_found");
  });
});

describe("removing a listing", () => {
  it("hides it with a reason the seller sees, the seller cannot relist it, and restoring brings it back", async () => {
    const reason = "Trademark complaint from another studio";
    const r = await rest("removeProduct", { cookie: cookies.admin, params: { id: fx.removed }, body: { reason } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.product).toMatchObject({ id: fx.removed, status: "removed", moderation_reason: reason });
    expect(await listings(`Consoleremoved ${run}`)).not.toContain(fx.removed);
    await expect(setProductStatus(fx.sellerId, fx.removed, "active")).rejects.toMatchObject({
      status: 409,
      code: "listing_held_by_operator",
      detail: expect.stringContaining(reason),
    });
    const { operatorHolds } = await import("@/lib/admin/seller-holds");
    expect((await operatorHolds(fx.sellerId)).removed).toEqual([{ id: fx.removed, name: `Consoleremoved ${run}`, reason }]);
    expectProblem(
      await rest("removeProduct", { cookie: cookies.admin, params: { id: fx.removed }, body: { reason } }),
      409,
      "product_already_removed",
    );
    expectProblem(await rest("removeProduct", { cookie: cookies.admin, params: { id: fx.listed }, body: { reason: "  " } }), 400, "invalid_body");

    const restored = await rest("restoreProduct", { cookie: cookies.admin, params: { id: fx.removed }, body: { note: "complaint withdrawn" } });
    expect(restored.body.product).toMatchObject({ status: "active", moderation_reason: null });
    expect(await listings(`Consoleremoved ${run}`)).toContain(fx.removed);
    // Removed again for the suspension test: a removal the reinstatement must not undo.
    expect((await rest("removeProduct", { cookie: cookies.admin, params: { id: fx.removed }, body: { reason } })).status).toBe(200);
  });
});

describe("suspending a seller", () => {
  it("hides their listings from the catalog API and MCP at once, stops them publishing, and their licenses keep validating", async () => {
    expect(await listings(`Consolelisted ${run}`)).toContain(fx.listed);
    const r = await rest("suspendSeller", { cookie: cookies.admin, params: { id: fx.sellerId }, body: { reason: "Chargebacks on every sale" } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.seller).toMatchObject({
      id: fx.sellerId,
      suspended_reason: "Chargebacks on every sale",
      products: { suspended: 1, unlisted: 1, removed: 1 },
    });
    expect([await status(fx.listed), await status(fx.unlisted), await status(fx.removed)]).toEqual(["suspended", "unlisted", "removed"]);

    expect(await listings(`Consolelisted ${run}`)).not.toContain(fx.listed);
    const catalog = await call(restRoutes("/api/catalog").GET, `/api/catalog?search=${encodeURIComponent(`Consolelisted ${run}`)}`);
    expect(catalog.body.products.map((p: { id: string }) => p.id)).not.toContain(fx.listed);
    expectProblem(
      await call(restRoutes("/api/marketplace/product/{id}").GET, `/api/marketplace/product/${fx.listed}`, { params: { id: fx.listed } }),
      404,
      "product_not_found",
    );
    expect((await mcp("get_product_details", { product_id: fx.listed })).isError).toBe(true);
    const browsed = await mcp("browse_marketplace", { query: `Consolelisted ${run}` });
    expect(JSON.stringify(browsed.structuredContent ?? {})).not.toContain(fx.listed);

    // Confirmed against the database, not a cached answer.
    licenseCache().invalidate(fx.key);
    expect(await validateLicense({ license_key: fx.key, machine_fingerprint: fx.machine, plugin_id: fx.pluginId })).toMatchObject({ valid: true });

    const create = await call(restRoutes("/api/v1/products").POST, "/api/v1/products", {
      method: "POST",
      headers: { cookie: cookies.seller },
      json: { ...product(`Consolenew ${run}`, `com.console.new${run}`) },
    });
    expectProblem(create, 403, "seller_suspended");
    await expect(setProductStatus(fx.sellerId, fx.unlisted, "active")).rejects.toMatchObject({ status: 403, code: "seller_suspended" });
    await expect(setProductStatus(fx.sellerId, fx.listed, "active")).rejects.toMatchObject({ status: 409, code: "listing_held_by_operator" });
    expectProblem(
      await rest("suspendSeller", { cookie: cookies.admin, params: { id: fx.sellerId }, body: { reason: "again" } }),
      409,
      "seller_already_suspended",
    );
  });

  it("racing suspensions suspend once and write one audit entry", async () => {
    const dev = await createDeveloperProfile(`race-${run}@example.com`, { ...SELLER_TRUST, name: `Race Studio ${run}`, website: null, bio: "" });
    const replies = await Promise.all(
      [0, 1, 2, 3].map(() => rest("suspendSeller", { cookie: cookies.admin, params: { id: dev.id }, body: { reason: "race" } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await getDb().auditEntry.count({ where: { targetId: dev.id, action: "seller.suspend" } })).toBe(1);
  });

  it("a listing created or relisted while the seller is being suspended never stays listed", async () => {
    for (let round = 0; round < 4; round++) {
      const dev = await sellingDeveloper(`slip-${round}-${run}@example.com`, { name: `Slip Studio ${round} ${run}`, website: null, bio: "" });
      const parked = await createProduct(dev.id, product(`Parked ${round} ${run}`, `com.console.parked${round}${run}`), { publish: true });
      await setProductStatus(dev.id, parked.id, "unlisted");
      // The seller publishes and relists while the operator suspends them, all at once.
      await Promise.allSettled([
        ...[0, 1, 2].map((i) =>
          createProduct(dev.id, product(`Slip ${round} ${i} ${run}`, `com.console.slip${round}x${i}${run}`), { publish: true }),
        ),
        setProductStatus(dev.id, parked.id, "active"),
        rest("suspendSeller", { cookie: cookies.admin, params: { id: dev.id }, body: { reason: "race" } }),
      ]);
      expect((await getDb().developer.findUniqueOrThrow({ where: { id: dev.id } })).suspendedAt).not.toBeNull();
      expect(await getDb().product.count({ where: { developerId: dev.id, status: "active" } })).toBe(0);
    }
  });

  it("reinstating lists again exactly the products the suspension hid", async () => {
    const r = await rest("reinstateSeller", { cookie: cookies.admin, params: { id: fx.sellerId }, body: { note: "Resolved with the bank" } });
    expect(r.status, r.text).toBe(200);
    expect(r.body.seller).toMatchObject({ suspended_at: null, suspended_reason: null });
    expect([await status(fx.listed), await status(fx.unlisted), await status(fx.removed)]).toEqual(["active", "unlisted", "removed"]);
    expect(await listings(`Consolelisted ${run}`)).toContain(fx.listed);
    expectProblem(await rest("reinstateSeller", { cookie: cookies.admin, params: { id: fx.sellerId }, body: {} }), 409, "seller_not_suspended");
    expectProblem(await rest("reinstateSeller", { cookie: cookies.admin, params: { id: "no-such-seller" }, body: {} }), 404, "seller_not_found");
  });
});

describe("refunds by the operator", () => {
  it("refunds part, then the rest (revoking the license), each with an audit entry; more than remains is refused", async () => {
    const part = await rest("refundOrderAsOperator", {
      cookie: cookies.admin,
      params: { id: fx.orderId },
      body: { amount_cents: 500, reason: "Goodwill" },
    });
    expect(part.status, part.text).toBe(201);
    expect(part.body).toMatchObject({ full: false, refund: { amount_cents: 500, initiated_by: "operator" }, order: { refunded_cents: 500 } });
    expectProblem(
      await rest("refundOrderAsOperator", { cookie: cookies.admin, params: { id: fx.orderId }, body: { amount_cents: 1001, reason: "Too much" } }),
      409,
      "refund_exceeds_remaining",
    );
    const rest_ = await rest("refundOrderAsOperator", { cookie: cookies.admin, params: { id: fx.orderId }, body: { reason: "Product withdrawn" } });
    expect(rest_.status, rest_.text).toBe(201);
    expect(rest_.body).toMatchObject({ full: true, refund: { amount_cents: 1000 }, order: { refunded_cents: 1500, license: { is_active: false } } });
    const audits = await getDb().auditEntry.findMany({ where: { targetId: fx.orderId, action: "order.refund" }, orderBy: { createdAt: "asc" } });
    expect(audits.map((a) => [a.actorEmail, (a.detail as { amount_cents: number }).amount_cents])).toEqual([
      [ADMIN_EMAIL, 500],
      [ADMIN_EMAIL, 1000],
    ]);
  });
});

describe("the audit log", () => {
  it("holds every operator action, who took it and on what, newest first", async () => {
    const r = await rest("listAuditEntries", { cookie: cookies.admin, query: { limit: "200" } });
    expect(r.status, r.text).toBe(200);
    const mine = (r.body.entries as Array<{ action: string; target_id: string; actor_email: string; detail: Record<string, unknown> }>).filter((e) =>
      [fx.sellerId, fx.removed, fx.orderId].includes(e.target_id),
    );
    expect(mine.map((e) => e.action).reverse()).toEqual([
      "product.remove",
      "product.restore",
      "product.remove",
      "seller.suspend",
      "seller.reinstate",
      "order.refund",
      "order.refund",
    ]);
    expect(mine.every((e) => e.actor_email === ADMIN_EMAIL)).toBe(true);
    expect(mine.find((e) => e.action === "seller.suspend")?.detail).toEqual({
      reason: "Chargebacks on every sale",
      products_hidden: 1,
      checkouts_closed: 0,
    });
    const filtered = await rest("listAuditEntries", { cookie: cookies.admin, query: { action: "seller.reinstate", target_id: fx.sellerId } });
    expect(filtered.body.entries).toHaveLength(1);
  });
});

describe("the overview", () => {
  it("is the ledger's sums by month and currency, the last 12 months only", async () => {
    // A currency of its own (XTS, ISO 4217's code for testing), so other tests' sales do not blur the figures.
    const now = new Date();
    const monthsAgo = (n: number, day = 10) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, day, 12));
    const e = (key: string, kind: Parameters<typeof recordEntries>[1][number]["kind"], amountMinor: number, createdAt: Date) => ({
      key: `${key}:${run}`,
      developerId: fx.sellerId,
      kind,
      amountMinor,
      currency: "xts",
      createdAt,
    });
    await getDb().$transaction((tx) =>
      recordEntries(tx, [
        e("sale:a", "sale", 10_000, monthsAgo(0, 1)),
        e("discount:a", "discount", -1_000, monthsAgo(0, 1)),
        e("platform_fee:a", "platform_fee", -450, monthsAgo(0, 1)),
        e("tax:a", "tax", 900, monthsAgo(0, 1)),
        e("sale:b", "sale", 2_000, monthsAgo(3)),
        e("platform_fee:b", "platform_fee", -100, monthsAgo(3)),
        e("refund:b", "refund", -2_000, monthsAgo(3)),
        e("fee_refund:b", "fee_refund", 100, monthsAgo(3)),
        e("tax_refund:b", "tax_refund", -50, monthsAgo(3)),
        e("sale:c", "sale", 3_000, monthsAgo(11, 1)),
        e("dispute:c", "dispute", -3_000, monthsAgo(11, 2)),
        e("dispute_reversal:c", "dispute_reversal", 3_000, monthsAgo(11, 3)),
        e("payout:c", "payout", -1_234, monthsAgo(11, 4)),
        e("sale:old", "sale", 99_999, monthsAgo(12, 28)),
      ]),
    );
    const r = await rest("getAdminOverview", { cookie: cookies.admin });
    expect(r.status, r.text).toBe(200);

    // Recomputed here from the raw entries, kind by kind.
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1));
    const rows = await getDb().ledgerEntry.findMany({ where: { currency: "xts", createdAt: { gte: from } } });
    const sum = (kinds: string[], month?: string) =>
      rows.filter((x) => kinds.includes(x.kind) && (!month || x.createdAt.toISOString().startsWith(month))).reduce((a, x) => a + x.amountMinor, 0);
    const expected = (month?: string) => ({
      currency: "xts",
      orders: rows.filter((x) => x.kind === "sale" && (!month || x.createdAt.toISOString().startsWith(month))).length,
      gross: sum(["sale"], month),
      discounts: 0 - sum(["discount"], month),
      fees: 0 - sum(["platform_fee"], month),
      fee_refunds: sum(["fee_refund"], month),
      revenue: 0 - sum(["platform_fee", "fee_refund"], month),
      refunds: 0 - sum(["refund"], month),
      disputes: 0 - sum(["dispute", "dispute_reversal"], month),
      tax: sum(["tax", "tax_refund"], month),
    });
    const months = (r.body.months as Array<{ month: string; currency: string }>).filter((m) => m.currency === "xts");
    const keys = [11, 3, 0].map((n) => monthsAgo(n).toISOString().slice(0, 7));
    expect(months.map((m) => m.month)).toEqual(keys);
    for (const k of keys) expect(months.find((m) => m.month === k)).toEqual({ month: k, ...expected(k) });
    expect(r.body.totals.find((t: { currency: string }) => t.currency === "xts")).toEqual(expected());
    // The figures the entries imply, written out: the old sale and the payout are not in them.
    expect(expected()).toEqual({
      currency: "xts",
      orders: 3,
      gross: 15_000,
      discounts: 1_000,
      fees: 550,
      fee_refunds: 100,
      revenue: 450,
      refunds: 2_000,
      disputes: 0,
      tax: 850,
    });
    expect(r.body.counts.sellers).toBe(await getDb().developer.count());
    expect(r.body.counts.sellers_suspended).toBe(await getDb().developer.count({ where: { suspendedAt: { not: null } } }));
    expect(r.body.counts.products.active).toBe(await getDb().product.count({ where: { status: "active" } }));
  });
});
