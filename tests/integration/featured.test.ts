import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setProductStatus } from "@/lib/selling/products";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { disconnectDb, getDb } from "@/lib/db";
import { resetEnv } from "@/lib/env";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/rate-limit";
import { FEATURED_LIMIT, homeRows } from "@/lib/marketplace/featured";
import { getDeveloperPage } from "@/lib/marketplace/get-developer";
import { restRoutes } from "@/lib/transports/rest";
import { call, expectProblem, type Reply } from "../helpers/http";
import { clockPast } from "../helpers/clock";
import { createTestProduct, sellerCookie, sellingDeveloper } from "../helpers/sellers";

/**
 * Featuring on the home page: only the operator features and unfeatures (anyone else gets the console's 404
 * problem), only listed products can be featured, racing requests feature once with one audit entry, and the home
 * page's rows (featured newest first, top rated by average then count) follow at once. The developer page's facts
 * come from listed products only.
 */

const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const ADMIN_EMAIL = `feature-ops-${run}@example.com`;
const saved = process.env.ADMIN_EMAILS;
const cookies = { admin: "", seller: "" };
const fx = { developer: "", a: "", b: "", c: "", unlisted: "" };

async function post(action: "feature" | "unfeature", id: string, opts: { cookie?: string; origin?: string } = {}): Promise<Reply> {
  const path = `/api/admin/products/{id}/${action}`;
  const headers: Record<string, string> = { [CLIENT_ADDRESS_HEADER]: "198.51.100.21" };
  if (opts.cookie) headers.cookie = opts.cookie;
  if (opts.origin) headers.origin = opts.origin;
  return call(restRoutes(path).POST, path.replace("{id}", encodeURIComponent(id)), { method: "POST", headers, params: { id } });
}

const featuredIds = async () => (await homeRows()).featured.map((p) => p.id);

beforeAll(async () => {
  process.env.ADMIN_EMAILS = ADMIN_EMAIL;
  resetEnv();
  cookies.admin = await sellerCookie(ADMIN_EMAIL);
  const email = `feature-seller-${run}@example.com`;
  const dev = await sellingDeveloper(email, {
    name: `Feature Studio ${run}`,
    website: "https://feature.example.com",
    bio: "Tools for the featuring test.",
    refund_policy: "Refunds within 14 days, no questions asked.",
    support_email: `help-${run}@example.com`,
  });
  fx.developer = dev.id;
  cookies.seller = await sellerCookie(email);
  fx.a = (await createTestProduct(dev.id, `Feature A ${run}`, `com.feature.a${run}`)).id;
  fx.b = (await createTestProduct(dev.id, `Feature B ${run}`, `com.feature.b${run}`, { category: "dev-tools" })).id;
  fx.c = (await createTestProduct(dev.id, `Feature C ${run}`, `com.feature.c${run}`)).id;
  fx.unlisted = (await createTestProduct(dev.id, `Feature Hidden ${run}`, `com.feature.hidden${run}`, { category: "game-assets" })).id;
  await setProductStatus(dev.id, fx.unlisted, "unlisted");
});

afterAll(async () => {
  // The home page's rows are shared by every test of the run: leave them as they were.
  await getDb().product.updateMany({ where: { developerId: fx.developer }, data: { featuredAt: null, ratingAverage: 0, ratingCount: 0 } });
  if (saved === undefined) delete process.env.ADMIN_EMAILS;
  else process.env.ADMIN_EMAILS = saved;
  resetEnv();
  await disconnectDb();
});

describe("featuring a product", () => {
  it("is the operator's alone: anyone else gets the console's 404 problem and nothing changes", async () => {
    for (const action of ["feature", "unfeature"] as const) {
      for (const cookie of [undefined, cookies.seller]) {
        const r = await post(action, fx.a, { cookie });
        expectProblem(r, 404, "route_not_found");
      }
    }
    expect((await getDb().product.findUniqueOrThrow({ where: { id: fx.a } })).featuredAt).toBeNull();
    // The operator's session from another site's page is refused too.
    expectProblem(await post("feature", fx.a, { cookie: cookies.admin, origin: "https://evil.example" }), 403, "cross_site_request");
    expect((await getDb().product.findUniqueOrThrow({ where: { id: fx.a } })).featuredAt).toBeNull();
  });

  it("puts a listed product first in the home page's Featured row, with an audit entry; the row follows each change at once", async () => {
    // Read once so the row is cached: featuring must clear it.
    expect(await featuredIds()).not.toContain(fx.a);
    const first = await post("feature", fx.a, { cookie: cookies.admin });
    expect(first.status, first.text).toBe(200);
    expect(first.body.product).toMatchObject({ id: fx.a, status: "active", featured_at: expect.any(String) });
    expect((await featuredIds())[0]).toBe(fx.a);
    await clockPast();
    expect((await post("feature", fx.b, { cookie: cookies.admin })).status).toBe(200);
    // Newest featured first.
    expect((await featuredIds()).slice(0, 2)).toEqual([fx.b, fx.a]);

    const audit = await getDb().auditEntry.findMany({ where: { targetId: fx.a, action: "product.feature" } });
    expect(audit.map((e) => [e.actorEmail, e.targetType])).toEqual([[ADMIN_EMAIL, "product"]]);
    expect(audit[0]!.detail).toEqual({ featured_at: first.body.product.featured_at });

    // A featured product the seller unlists leaves the row; relisted, it is back in its place.
    await setProductStatus(fx.developer, fx.b, "unlisted");
    expect(await featuredIds()).not.toContain(fx.b);
    await setProductStatus(fx.developer, fx.b, "active");
    expect((await featuredIds()).slice(0, 2)).toEqual([fx.b, fx.a]);

    const off = await post("unfeature", fx.a, { cookie: cookies.admin });
    expect(off.status, off.text).toBe(200);
    expect(off.body.product).toMatchObject({ id: fx.a, featured_at: null });
    expect(await featuredIds()).not.toContain(fx.a);
    expect(await getDb().auditEntry.count({ where: { targetId: fx.a, action: "product.unfeature" } })).toBe(1);
  });

  it("refuses what cannot be featured or unfeatured, with stable codes", async () => {
    expectProblem(await post("feature", fx.unlisted, { cookie: cookies.admin }), 409, "product_not_listed");
    expectProblem(await post("feature", fx.b, { cookie: cookies.admin }), 409, "product_already_featured");
    expectProblem(await post("unfeature", fx.c, { cookie: cookies.admin }), 409, "product_not_featured");
    expectProblem(await post("feature", `no-such-product-${run}`, { cookie: cookies.admin }), 404, "product_not_found");
    expectProblem(await post("unfeature", `no-such-product-${run}`, { cookie: cookies.admin }), 404, "product_not_found");
    expectProblem(await post("feature", "Not an id!", { cookie: cookies.admin }), 400, "invalid_path");
    expect(await getDb().auditEntry.count({ where: { targetId: { in: [fx.unlisted, fx.c] } } })).toBe(0);
  });

  it("racing requests feature once and write one audit entry; racing unfeatures likewise", async () => {
    const on = await Promise.all([0, 1, 2, 3, 4].map(() => post("feature", fx.c, { cookie: cookies.admin })));
    expect(on.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(on.filter((r) => r.status === 409).every((r) => r.body.code === "product_already_featured")).toBe(true);
    expect(await getDb().auditEntry.count({ where: { targetId: fx.c, action: "product.feature" } })).toBe(1);
    const off = await Promise.all([0, 1, 2, 3].map(() => post("unfeature", fx.c, { cookie: cookies.admin })));
    expect(off.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect(await getDb().auditEntry.count({ where: { targetId: fx.c, action: "product.unfeature" } })).toBe(1);
  });

  it("shows at most the newest featured products the row holds", async () => {
    expect((await homeRows()).featured.length).toBeLessThanOrEqual(FEATURED_LIMIT);
  });
});

describe("the home page's other rows", () => {
  it("New is the newest listings; Top rated holds only rated products, higher average first, then more reviews", async () => {
    const rows = await homeRows();
    const newest = await getDb().product.findMany({ where: { status: "active" }, orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: 1 });
    expect(rows.newest[0]?.id).toBe(newest[0]?.id);

    // Ratings as the reviews code maintains them. a and b have the top average (5) with more reviews than any
    // product of another file on this database can have, so they lead; c has more reviews still but a lower average,
    // so every product averaging 5 (other files' included: a refunded buyer's test leaves one) comes before it.
    const rate = (id: string, ratingAverage: number, ratingCount: number) =>
      getDb().product.update({ where: { id }, data: { ratingAverage, ratingCount } });
    await rate(fx.a, 5, 90_000);
    await rate(fx.b, 5, 99_000);
    await rate(fx.c, 4.99, 100_000);
    await rate(fx.unlisted, 5, 200_000);
    const top = (await homeRows()).topRated.map((p) => p.id);
    expect(top.slice(0, 2)).toEqual([fx.b, fx.a]);
    expect(top).not.toContain(fx.unlisted);
    // The whole row in its order: higher average first, then more reviews, every one rated. (Ties then go by id in
    // the database's collation, which this does not restate.)
    const facts = new Map(
      (await getDb().product.findMany({ where: { id: { in: top } }, select: { id: true, ratingAverage: true, ratingCount: true } })).map((r) => [
        r.id,
        r,
      ]),
    );
    const rank = top.map((id) => [facts.get(id)!.ratingAverage, facts.get(id)!.ratingCount] as const);
    for (let i = 1; i < rank.length; i++) {
      const [[a1, c1], [a2, c2]] = [rank[i - 1]!, rank[i]!];
      expect(a1 > a2 || (a1 === a2 && c1 >= c2), `${top[i - 1]} before ${top[i]}`).toBe(true);
    }
    expect([...facts.values()].every((r) => r.ratingCount >= 1)).toBe(true);
    if (top.includes(fx.c)) expect(top.slice(0, top.indexOf(fx.c)).every((id) => facts.get(id)!.ratingAverage === 5)).toBe(true);
  });
});

describe("the developer page's facts", () => {
  it("count listed products only, weigh each product's average by its reviews, and list the categories used", async () => {
    await getDb().product.update({ where: { id: fx.a }, data: { ratingAverage: 4, ratingCount: 1 } });
    await getDb().product.update({ where: { id: fx.b }, data: { ratingAverage: 5, ratingCount: 3 } });
    await getDb().product.update({ where: { id: fx.c }, data: { ratingAverage: 0, ratingCount: 0 } });
    const page = await getDeveloperPage(fx.developer);
    expect(page).toMatchObject({
      id: fx.developer,
      name: `Feature Studio ${run}`,
      bio: "Tools for the featuring test.",
      website: "https://feature.example.com",
      supportEmail: `help-${run}@example.com`,
      productCount: 3,
      rating: { average: 4.75, count: 4 },
      categories: [
        { category: "desktop-apps", count: 2 },
        { category: "dev-tools", count: 1 },
      ],
    });
    expect(page!.memberSince).toBeInstanceOf(Date);
  });

  it("is nobody's for an unknown id, a malformed one, or a developer with nothing listed", async () => {
    expect(await getDeveloperPage(`no-such-developer-${run}`)).toBeNull();
    expect(await getDeveloperPage("Not An Id")).toBeNull();
    const empty = await createDeveloperProfile(`feature-empty-${run}@example.com`, { name: `Empty Studio ${run}`, website: null, bio: "" });
    expect(await getDeveloperPage(empty.id)).toBeNull();
  });
});
