import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute, POST as issueRoute } from "@/app/api/v1/licenses/route";
import { GET as getRoute } from "@/app/api/v1/licenses/[id]/route";
import { GET as eventsRoute } from "@/app/api/v1/licenses/[id]/events/route";
import { POST as revokeRoute } from "@/app/api/v1/licenses/[id]/revoke/route";
import { POST as reinstateRoute } from "@/app/api/v1/licenses/[id]/reinstate/route";
import { POST as releaseRoute } from "@/app/api/v1/licenses/[id]/machines/[machine_id]/release/route";
import { POST as restoreRoute } from "@/app/api/v1/licenses/[id]/machines/[machine_id]/restore/route";
import { listSellerProducts } from "@/lib/selling/products";
import { disconnectDb, getDb } from "@/lib/db";
import { syncProductSearch } from "@/lib/marketplace/search-index";
import { storedSearchText } from "@/lib/marketplace/search-text";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { issueLicense } from "@/lib/licensing/issue-license";
import { keyFragments } from "@/lib/seller-api/licenses";
import { call, expectProblem, type Reply } from "../helpers/http";
import { fingerprint } from "../helpers/licenses";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * The seller license API (lib/operations/seller-licenses.ts) through its route handlers, with a seller API token and
 * with the dashboard's session cookie: search, pages, detail with machines, the event log, revoke and reinstate,
 * release and undo, complimentary licenses with an idempotency key, and another seller's license as a 404.
 */

afterAll(() => disconnectDb());

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

interface Seller {
  id: string;
  email: string;
  cookie: string;
  bearer: string;
  product: { id: string; name: string; pluginId: string };
}

async function newSeller(label: string): Promise<Seller> {
  const id = unique();
  const email = `sl-${label}-${id}@example.com`;
  const dev = await sellingDeveloper(email, { name: `Licenses ${label} ${id}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Quasar ${label} ${id}`, `com.sellerlicenses.${label}${id}`, { price_cents: 1200 });
  const cookie = await sellerCookie(email);
  return {
    id: dev.id,
    email,
    cookie,
    bearer: await sellerToken(dev.id, ["licenses"], { name: `ci ${label}` }),
    product: { id: product.id, name: product.name, pluginId: product.pluginId },
  };
}

const token = (s: Seller) => ({ authorization: `Bearer ${s.bearer}` });
const session = (s: Seller) => ({ cookie: s.cookie, origin: "http://localhost:3000" });

async function license(s: Seller, buyer: string, at: Date) {
  const l = await issueLicense(getDb(), { productId: s.product.id, buyerEmail: buyer, maxMachines: 2, source: "purchase" });
  // Distinct issue times, so "newest first" is a fact the test can check.
  await getDb().license.update({ where: { id: l.id }, data: { issuedAt: at } });
  return l;
}

let a: Seller;
let b: Seller;
const licenses: Array<{ id: string; key: string; buyerEmail: string }> = [];
const run = unique();

beforeAll(async () => {
  a = await newSeller("a");
  b = await newSeller("b");
  for (let i = 0; i < 5; i++) {
    const l = await license(a, `sl-buyer${String(i)}-${run}@example.com`, new Date(Date.now() - (5 - i) * 60_000));
    licenses.push(l);
  }
});

const search = (s: Seller, query: Record<string, string>, headers: Record<string, string> = token(s)) =>
  call(listRoute, `/api/v1/licenses?${new URLSearchParams(query).toString()}`, { headers });

describe("keyFragments", () => {
  it("puts the dashes back wherever the part starts in a group", () => {
    expect(keyFragments("abcd1234")).toContain("ABCD-1234");
    expect(keyFragments("CD-12")).toContain("CD-12");
    expect(keyFragments("cd12")).toEqual(expect.arrayContaining(["CD12", "C-D12", "CD-12", "CD1-2"]));
    expect(keyFragments("abc")).toBeNull();
    expect(keyFragments("ab@c.d")).toBeNull();
  });
});

describe("searching licenses", () => {
  it("finds a license by part of its key, with or without dashes, in any case", async () => {
    const l = licenses[2]!;
    const part = l.key.slice(2, 12); // e.g. "CD-1234-EF": across a dash
    for (const q of [part, part.replace(/-/g, ""), part.toLowerCase().replace(/-/g, ""), l.key]) {
      const r = await search(a, { q });
      expect(r.status, r.text).toBe(200);
      expect(r.body.licenses.map((x: { id: string }) => x.id)).toEqual([l.id]);
    }
    // The dashboard's session finds it the same way.
    const viaSession = await search(a, { q: part.replace(/-/g, "") }, session(a));
    expect(viaSession.body.licenses.map((x: { id: string }) => x.id)).toEqual([l.id]);
  });

  it("finds licenses by part of the buyer's e-mail and by part of the product name", async () => {
    const byMail = await search(a, { q: `BUYER3-${run}` });
    expect(byMail.body.licenses.map((x: { id: string }) => x.id)).toEqual([licenses[3]!.id]);
    const byName = await search(a, { q: a.product.name.slice(0, 12).toUpperCase() });
    expect(byName.body.licenses).toHaveLength(5);
    // Newest first.
    expect(byName.body.licenses.map((x: { id: string }) => x.id)).toEqual(licenses.map((l) => l.id).reverse());
    expect(byName.body.licenses[0]).toMatchObject({ product: { id: a.product.id, name: a.product.name }, status: "active", machines: [] });
  });

  it("pages with an opaque cursor and filters by status and product", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: Record<string, string> = { limit: "2", ...(cursor ? { cursor } : {}) };
      const r: Awaited<ReturnType<typeof search>> = await search(a, q);
      expect(r.status, r.text).toBe(200);
      expect(r.body.licenses.length).toBeLessThanOrEqual(2);
      seen.push(...r.body.licenses.map((x: { id: string }) => x.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(licenses.map((l) => l.id).reverse());
    expectProblem(await search(a, { cursor: "bm90IGEgY3Vyc29y" }), 400, "invalid_cursor");
    expectProblem(await search(a, { limit: "101" }), 400, "invalid_query");
    expect((await search(a, { status: "trial" })).body.licenses).toEqual([]);
    expect((await search(a, { product_id: b.product.id })).body.licenses).toEqual([]);
  });

  it("never shows another seller's licenses", async () => {
    const l = licenses[0]!;
    expect((await search(b, { q: l.key })).body.licenses).toEqual([]);
    expect((await search(b, { q: l.buyerEmail })).body.licenses).toEqual([]);
    expectProblem(await call(getRoute, `/api/v1/licenses/${l.id}`, { headers: token(b), params: { id: l.id } }), 404, "license_not_found");
    expectProblem(await call(eventsRoute, `/api/v1/licenses/${l.id}/events`, { headers: token(b), params: { id: l.id } }), 404, "license_not_found");
    expectProblem(
      await call(revokeRoute, `/api/v1/licenses/${l.id}/revoke`, { method: "POST", json: {}, headers: token(b), params: { id: l.id } }),
      404,
      "license_not_found",
    );
    const still = await getDb().license.findUniqueOrThrow({ where: { id: l.id } });
    expect(still.isActive).toBe(true);
  });
});

describe("a seller with more products than one SQLite query can bind (999)", () => {
  it("lists and searches their licenses, and the products page counts them", async () => {
    const c = await newSeller("many");
    // Unlisted (the catalogue other test files page through stays as it is), with their search text and index rows
    // written in the same transaction, as every product write keeps them.
    const developer = (await getDb().developer.findUniqueOrThrow({ where: { id: c.id } })).name;
    const extra = Array.from({ length: 1200 }, (_, i) => {
      const row = {
        id: `many-${run}-${String(i)}`,
        pluginId: `com.many.${run}.p${String(i)}`,
        name: `Quasar many ${String(i)}`,
        tagline: "",
        description: "One of many.",
        category: "dev-tools",
        compatibility: [],
        inputs: [],
        outputs: [],
        platforms: ["linux"],
      };
      return {
        ...row,
        developerId: c.id,
        status: "unlisted",
        searchText: storedSearchText(row, developer),
        priceCents: 500,
        maxMachines: 1,
        images: [],
        downloadUrl: "https://example.com/download",
        iconUrl: "/icons/tape-warmth.svg",
      };
    });
    // 1,200 products and their search rows in one transaction: more than Prisma's default 5 s on a busy 2-core machine.
    await getDb().$transaction(
      async (tx) => {
        await tx.product.createMany({ data: extra });
        for (let i = 0; i < extra.length; i += 500) await syncProductSearch(tx, { productIds: extra.slice(i, i + 500).map((p) => p.id) });
      },
      { timeout: 60_000 },
    );
    const own = await license(c, `sl-many-${run}@example.com`, new Date());
    const listed = await search(c, {});
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.licenses.map((x: { id: string }) => x.id)).toEqual([own.id]);
    // Every product's name matches "quasar many": named by a subquery, not 600 bound ids.
    const byName = await search(c, { q: "Quasar many" });
    expect(byName.status, JSON.stringify(byName.body)).toBe(200);
    expect(await search(c, { q: own.key.slice(5, 9) })).toMatchObject({ status: 200 });
    const counted = await listSellerProducts(c.id);
    expect(counted).toHaveLength(1201);
    expect(counted.find((p) => p.id === c.product.id)?._count.licenses).toBe(1);
    expect(counted.filter((p) => p._count.licenses === 0)).toHaveLength(1200);
  });
});

describe("managing a license", () => {
  it("shows machines with their details, releases one and undoes the release", async () => {
    const l = licenses[4]!;
    const fp = fingerprint(`sl-${run}`);
    const act = await activateMachine({
      license_key: l.key,
      machine_fingerprint: fp,
      plugin_id: a.product.pluginId,
      machine_name: "Studio Mac",
      platform: "macOS 15.1 arm64",
      app_version: "2.3.1",
    });
    expect(act.activated).toBe(true);
    const got = await call(getRoute, `/api/v1/licenses/${l.id}`, { headers: token(a), params: { id: l.id } });
    expect(got.status, got.text).toBe(200);
    const machine = got.body.license.machines[0];
    expect(machine).toMatchObject({ fingerprint: fp, name: "Studio Mac", platform: "macOS 15.1 arm64", app_version: "2.3.1" });
    expect(machine.short_fingerprint).toBe(`${fp.slice(0, 8)}…${fp.slice(-4)}`);

    const params = { id: l.id, machine_id: machine.id };
    const released = await call(releaseRoute, `/api/v1/licenses/${l.id}/machines/${machine.id}/release`, {
      method: "POST",
      headers: token(a),
      params,
    });
    expect(released.status, released.text).toBe(200);
    expect(released.body.license.machines).toEqual([]);
    expect(Date.parse(released.body.undo_until)).toBeGreaterThan(Date.now());
    // A second release of the same machine: it is gone.
    expectProblem(
      await call(releaseRoute, `/api/v1/licenses/${l.id}/machines/${machine.id}/release`, { method: "POST", headers: token(a), params }),
      404,
      "activation_not_found",
    );
    // Another seller cannot undo it.
    expectProblem(
      await call(restoreRoute, `/api/v1/licenses/${l.id}/machines/${machine.id}/restore`, { method: "POST", headers: token(b), params }),
      404,
      "license_not_found",
    );
    const restored = await call(restoreRoute, `/api/v1/licenses/${l.id}/machines/${machine.id}/restore`, {
      method: "POST",
      headers: session(a),
      params,
    });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.restored).toBe(true);
    expect(restored.body.license.machines).toMatchObject([{ id: machine.id, fingerprint: fp, name: "Studio Mac" }]);
    const again = await call(restoreRoute, `/api/v1/licenses/${l.id}/machines/${machine.id}/restore`, { method: "POST", headers: token(a), params });
    expect(again.body.restored).toBe(false);

    const events = await call(eventsRoute, `/api/v1/licenses/${l.id}/events`, { headers: token(a), params: { id: l.id } });
    expect(events.status, events.text).toBe(200);
    const types = events.body.events.map((e: { type: string }) => e.type);
    expect(types.slice(0, 3)).toEqual(["restored", "released", "activated"]);
    expect(events.body.events[1]).toMatchObject({ actor: { type: "seller", name: expect.stringMatching(/^token:/) } });
    expect(events.body.events[0]).toMatchObject({ actor: { type: "seller", name: a.email } });
    // Paged one at a time, the same events in the same order.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const r: Reply = await call(eventsRoute, `/api/v1/licenses/${l.id}/events?limit=1${cursor ? `&cursor=${cursor}` : ""}`, {
        headers: token(a),
        params: { id: l.id },
      });
      paged.push(...r.body.events.map((e: { id: string }) => e.id));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(events.body.events.map((e: { id: string }) => e.id));
  });

  it("an unknown machine cannot be restored", async () => {
    const l = licenses[1]!;
    expectProblem(
      await call(restoreRoute, `/api/v1/licenses/${l.id}/machines/nope/restore`, {
        method: "POST",
        headers: token(a),
        params: { id: l.id, machine_id: "nope" },
      }),
      404,
      "activation_not_found",
    );
  });

  it("revokes with a reason and reinstates, logged with the actor", async () => {
    const l = licenses[0]!;
    const params = { id: l.id };
    const revoked = await call(revokeRoute, `/api/v1/licenses/${l.id}/revoke`, {
      method: "POST",
      json: { reason: "Refunded by hand" },
      headers: token(a),
      params,
    });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.license).toMatchObject({ status: "revoked", revoked_reason: "Refunded by hand", revocation: "seller" });
    expect((await search(a, { status: "revoked" })).body.licenses.map((x: { id: string }) => x.id)).toEqual([l.id]);
    const reinstated = await call(reinstateRoute, `/api/v1/licenses/${l.id}/reinstate`, { method: "POST", headers: session(a), params });
    expect(reinstated.status, reinstated.text).toBe(200);
    expect(reinstated.body.license).toMatchObject({ status: "active", revoked_reason: null });
    const events = await call(eventsRoute, `/api/v1/licenses/${l.id}/events`, { headers: token(a), params });
    expect(events.body.events.slice(0, 2)).toMatchObject([
      { type: "reinstated", actor: { type: "seller", name: a.email } },
      { type: "revoked", actor: { type: "seller" }, summary: "Revoked: Refunded by hand" },
    ]);
  });

  it("a read-only token can list but not revoke", async () => {
    const reader = await sellerToken(a.id, ["read"]);
    const l = licenses[1]!;
    expect((await search(a, { q: l.key }, { authorization: `Bearer ${reader}` })).body.licenses).toHaveLength(1);
    expectProblem(
      await call(revokeRoute, `/api/v1/licenses/${l.id}/revoke`, {
        method: "POST",
        json: {},
        headers: { authorization: `Bearer ${reader}` },
        params: { id: l.id },
      }),
      403,
      "insufficient_scope",
    );
  });

  it("issues a complimentary license once per idempotency key", async () => {
    const key = `sl-${run}`;
    const body = { product_id: a.product.id, buyer_email: `sl-gift-${run}@example.com`, max_machines: 3 };
    const first = await call(issueRoute, "/api/v1/licenses", { method: "POST", json: body, headers: { ...token(a), "idempotency-key": key } });
    expect(first.status, first.text).toBe(201);
    expect(first.body.license).toMatchObject({ source: "complimentary", buyer_email: body.buyer_email, max_machines: 3, status: "active" });
    const replay = await call(issueRoute, "/api/v1/licenses", { method: "POST", json: body, headers: { ...token(a), "idempotency-key": key } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.license.id).toBe(first.body.license.id);
    expect(await getDb().license.count({ where: { buyerEmail: body.buyer_email } })).toBe(1);
    const events = await call(eventsRoute, `/api/v1/licenses/${first.body.license.id}/events`, {
      headers: token(a),
      params: { id: first.body.license.id },
    });
    expect(events.body.events).toMatchObject([{ type: "issued", actor: { type: "seller", name: expect.stringMatching(/^token:/) } }]);
    // Another seller's product: not found.
    expectProblem(
      await call(issueRoute, "/api/v1/licenses", { method: "POST", json: { ...body, product_id: b.product.id }, headers: token(a) }),
      404,
      "product_not_found",
    );
  });
});
