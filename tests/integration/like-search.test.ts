import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as listRoute } from "@/app/api/v1/licenses/route";
import { captureQueries, dbEngine, disconnectDb, getDb } from "@/lib/db";
import { containsLiterally, literalIncludes } from "@/lib/db/like";
import { resetEnv } from "@/lib/env";
import { issueLicense } from "@/lib/licensing/issue-license";
import { searchAllLicenses, searchLicenses } from "@/lib/seller-api/licenses";
import { call } from "../helpers/http";
import { sellerToken } from "../helpers/seller-tokens";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * License search takes `%`, `_` and `\` literally on both engines (lib/db/like.ts): Prisma's `contains` is a LIKE
 * without an ESCAPE clause, so PostgreSQL gets the text escaped with backslashes and SQLite (which cannot escape
 * through Prisma) gets its candidates checked in code, a chunk at a time.
 */

const run = randomBytes(4).toString("hex");
const saved = process.env.DATABASE_QUERY_EVENTS;
let seller: { id: string; bearer: string };
const ids: Record<string, string> = {};

const EMAILS: Record<string, string> = {
  under: `under_score-${run}@example.com`,
  underOlder: `under_score-${run}-2@example.com`,
  underX: `underxscore-${run}@example.com`,
  pct: `pct100%off-${run}@example.com`,
  pctX: `pct100xoff-${run}@example.com`,
  back: `back\\slash-${run}@example.com`,
  backless: `backslash-${run}@example.com`,
  plain: `plain-${run}@example.com`,
};

beforeAll(async () => {
  process.env.DATABASE_QUERY_EVENTS = "on";
  resetEnv();
  await disconnectDb();
  const dev = await sellingDeveloper(`like-${run}@example.com`, { name: `Like Studio ${run}`, website: null, bio: "" });
  const plain = await createTestProduct(dev.id, `Plain ${run}`, `com.like.plain${run}`);
  const wild = await createTestProduct(dev.id, `Mix_Bus 50% ${run}`, `com.like.wild${run}`);
  const tame = await createTestProduct(dev.id, `MixxBus 50x ${run}`, `com.like.tame${run}`);
  seller = { id: dev.id, bearer: await sellerToken(dev.id, ["read"]) };
  const issue = async (label: string, productId: string, email: string, minutesAgo: number) => {
    const l = await issueLicense(getDb(), { productId, buyerEmail: email, maxMachines: 1, source: "complimentary" });
    await getDb().license.update({ where: { id: l.id }, data: { issuedAt: new Date(Date.now() - minutesAgo * 60_000) } });
    ids[label] = l.id;
  };
  // Older and older in the order listed.
  let minutes = 2000;
  for (const [label, email] of Object.entries(EMAILS)) await issue(label, plain.id, email, (minutes += 10));
  await issue("wildName", wild.id, `wild-${run}@example.com`, 100);
  await issue("tameName", tame.id, `tame-${run}@example.com`, 90);
  // Newer than all of them, more than one chunk of candidates that a LIKE with `_` as a wildcard also finds.
  await getDb().license.createMany({
    data: Array.from({ length: 520 }, (_, i) => ({
      key: `BULK-${run}-${String(i)}`.toUpperCase(),
      productId: plain.id,
      buyerEmail: `underxscore-${run}-${String(i)}@bulk.example.com`,
      maxMachines: 1,
      source: "complimentary",
      issuedAt: new Date(Date.now() - 60_000 + i),
    })),
  });
});

afterAll(async () => {
  if (saved === undefined) Reflect.deleteProperty(process.env, "DATABASE_QUERY_EVENTS");
  else process.env.DATABASE_QUERY_EVENTS = saved;
  resetEnv();
  await disconnectDb();
});

const idsOf = (licenses: Array<{ id: string }>) => licenses.map((l) => l.id);
const find = async (q: string, more: { limit?: number; cursor?: string } = {}) => searchLicenses(seller.id, { q, limit: more.limit ?? 50, ...more });

describe("what Prisma sends for contains", () => {
  it("a LIKE between two %, with the text bound as it is and no ESCAPE clause", async () => {
    const { queries } = await captureQueries(() => getDb().license.findMany({ where: { buyerEmail: { contains: "a_b%c\\d" } }, take: 1 }));
    const like = queries.find((q) => /LIKE/i.test(q.sql));
    expect(like, JSON.stringify(queries)).toBeDefined();
    expect(like!.sql).not.toMatch(/ESCAPE/i);
    expect(like!.params).toContain("a_b%c\\d");
    const engine = dbEngine();
    expect(containsLiterally("a_b%c\\d", engine)).toEqual(
      engine === "postgresql" ? { filter: { contains: "a\\_b\\%c\\\\d" }, exact: true } : { filter: { contains: "a_b%c\\d" }, exact: false },
    );
    expect(containsLiterally("a\\b", engine).exact).toBe(true);
    expect(literalIncludes("under_score", "r_s", engine)).toBe(true);
    // As each engine's LIKE: SQLite ignores the case of ASCII letters, PostgreSQL does not.
    expect(literalIncludes("UNDER_SCORE", "r_s", engine)).toBe(engine === "sqlite");
    expect(literalIncludes("underxscore", "r_s", engine)).toBe(false);
  });
});

describe("license search with %, _ and \\", () => {
  it("matches each of them literally in the buyer's e-mail", async () => {
    // (The product "Mix_Bus 50%" holds both, and its license is the newest of these.)
    expect(idsOf((await find("_")).licenses)).toEqual([ids.wildName, ids.under, ids.underOlder]);
    expect(idsOf((await find("%")).licenses)).toEqual([ids.wildName, ids.pct]);
    expect(idsOf((await find("\\")).licenses)).toEqual([ids.back]);
    expect(idsOf((await find(`r_score-${run}@`)).licenses)).toEqual([ids.under]);
    expect(idsOf((await find(`100%off-${run}`)).licenses)).toEqual([ids.pct]);
    expect(idsOf((await find(`k\\s`)).licenses)).toEqual([ids.back]);
    // Any case, as before.
    expect(idsOf((await find(`UNDER_SCORE-${run}@`)).licenses)).toEqual([ids.under]);
    expect(idsOf((await find(`K\\SLASH-${run}`)).licenses)).toEqual([ids.back]);
    // Without wildcards nothing changed: the x-spelled ones are found by their own text.
    expect(idsOf((await find(`underxscore-${run}@example`)).licenses)).toEqual([ids.underX]);
    expect(idsOf((await find(`backslash-${run}`)).licenses)).toEqual([ids.backless]);
  });

  it("matches them literally in product names", async () => {
    expect(idsOf((await find("x_bus 50%")).licenses)).toEqual([ids.wildName]);
    expect(idsOf((await find("50x")).licenses)).toEqual([ids.tameName]);
  });

  it("pages through literal matches past more than one chunk of wildcard-only candidates", async () => {
    const first = await find(`r_score-${run}`, { limit: 1 });
    expect(idsOf(first.licenses)).toEqual([ids.under]);
    expect(first.next_cursor).not.toBeNull();
    const second = await find(`r_score-${run}`, { limit: 1, cursor: first.next_cursor! });
    expect(idsOf(second.licenses)).toEqual([ids.underOlder]);
    expect(second.next_cursor).toBeNull();
    // The 520 newer x-spelled licenses are all found by their own text, newest first, across pages.
    const bulk = await find(`underxscore-${run}-`, { limit: 100 });
    expect(bulk.licenses).toHaveLength(100);
    expect(bulk.licenses[0]!.buyer_email).toBe(`underxscore-${run}-519@bulk.example.com`);
  });

  it("the seller API and the operator's search answer the same", async () => {
    const r = await call(listRoute, `/api/v1/licenses?${new URLSearchParams({ q: "_" }).toString()}`, {
      headers: { authorization: `Bearer ${seller.bearer}` },
    });
    expect(r.status, r.text).toBe(200);
    expect(idsOf(r.body.licenses as Array<{ id: string }>)).toEqual([ids.wildName, ids.under, ids.underOlder]);
    const pct = await call(listRoute, `/api/v1/licenses?${new URLSearchParams({ q: "%" }).toString()}`, {
      headers: { authorization: `Bearer ${seller.bearer}` },
    });
    expect(idsOf(pct.body.licenses as Array<{ id: string }>)).toEqual([ids.wildName, ids.pct]);
    expect(idsOf((await searchAllLicenses({ q: `r_score-${run}@`, limit: 10 })).licenses)).toEqual([ids.under]);
    expect(idsOf((await searchAllLicenses({ q: `0%off-${run}`, limit: 10 })).licenses)).toEqual([ids.pct]);
    expect(idsOf((await searchAllLicenses({ q: `k\\slash-${run}`, limit: 10 })).licenses)).toEqual([ids.back]);
  });
});
