import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { listSellerProducts } from "@/lib/selling/products";
import { captureQueries, dbEngine, disconnectDb, getDb, type CapturedQuery } from "@/lib/db";
import { env, resetEnv } from "@/lib/env";
import { activateMachine } from "@/lib/licensing/activate-machine";
import { issueLicense } from "@/lib/licensing/issue-license";
import { licenseCache } from "@/lib/licensing/license-state";
import { validateLicense } from "@/lib/licensing/validate-license";
import { flushValidations } from "@/lib/licensing/validation-log";
import { countCategories } from "@/lib/marketplace/count-categories";
import { listProducts } from "@/lib/marketplace/list-products";
import { clearReadCache } from "@/lib/cache/read-cache";
import { ALL_SORTS } from "@/lib/marketplace/schemas";
import { searchLicenses } from "@/lib/seller-api/licenses";
import { fingerprint } from "../helpers/licenses";
import { explainer, hasPlan, type Explainer } from "../helpers/query-plans";
import { createTestProduct, sellingDeveloper } from "../helpers/sellers";

/**
 * The hot queries read no large table whole, on either engine. Each case runs the application's own code (the
 * licensing calls, the listing and search, the dashboard's license list) with the database client reporting every
 * statement it sends (DATABASE_QUERY_EVENTS, lib/db.ts's captureQueries), then asks the engine for each statement's
 * plan with the same parameters bound (tests/helpers/query-plans.ts). A whole large table (License, Activation,
 * Product, LicenseEvent, Order, Review, Release, and PostgreSQL's ProductSearch and ProductSearchWord) read by a
 * statement fails its case, naming the statement and the plan line:
 *
 * - SQLite: `SCAN <table>`, also `SCAN <table> USING [COVERING] INDEX …` (a whole index walked). The plans are made
 *   as in production, where the application never runs ANALYZE.
 * - PostgreSQL: `Seq Scan`, or an `Index Scan`/`Index Only Scan` with no Index Cond (a whole index walked). The plans
 *   are made over tens of thousands of added rows, analysed, with sequential scans disabled: on small tables the
 *   planner would rightly prefer a Seq Scan, so only a scan that no index can replace counts.
 *
 * Allowed, and why: an index searched with a condition counts as used even where the condition matches most rows
 * (a listing's total counts every listed product through the status index: that is what the number is). A search
 * reads the FTS5 index (`SCAN s VIRTUAL TABLE INDEX …`) or the GIN index and then the products it matched; a word
 * that matches nothing is corrected from the catalogue's vocabulary, which on SQLite is the FTS5 vocabulary table
 * (`SCAN ProductWordVocab VIRTUAL TABLE`: one row per distinct word, not per product, read only for such a word) and
 * on PostgreSQL the trigram index on the words.
 */

const saved = process.env.DATABASE_QUERY_EVENTS;
const run = randomBytes(4).toString("hex");
const CATEGORY = "audio-plugins";
const SEARCH = "reverb";
// No product has this word; one letter off "reverb", so the search corrects it from the catalogue's words.
const TYPO = "reverv";

let plans: Explainer | undefined;
let seller: { id: string; productName: string };
let keys: { validated: string; fresh: string; pluginId: string };
/** A license of a seller with no webhook endpoint: its activation takes the direct path (direct-activation.ts). */
let direct: { key: string; pluginId: string };
let machine: string;
let endpointId: string;

beforeAll(async () => {
  process.env.DATABASE_QUERY_EVENTS = "on";
  resetEnv();
  // A seller of their own: two products, three licenses of the first, one of them with a machine; a webhook endpoint
  // that takes every event, created last so that only the activation under test queues a delivery.
  const dev = await sellingDeveloper(`plans-${run}@example.com`, { name: `Plan Check ${run}`, website: null, bio: "" });
  const product = await createTestProduct(dev.id, `Oscillator Plancheck ${run}`, `com.plans.osc${run}`, { max_machines: 3 });
  await createTestProduct(dev.id, `Ledger Plancheck ${run}`, `com.plans.ledger${run}`);
  seller = { id: dev.id, productName: "Oscillator" };
  const issue = (n: number) =>
    issueLicense(getDb(), { productId: product.id, buyerEmail: `plans-${run}-${n}@example.com`, maxMachines: 3, source: "complimentary" });
  const [validated, fresh] = [await issue(1), await issue(2)];
  await issue(3);
  keys = { validated: validated.key, fresh: fresh.key, pluginId: product.pluginId };
  machine = fingerprint(`plans-${run}`);
  const first = await activateMachine({ license_key: validated.key, machine_fingerprint: machine, plugin_id: product.pluginId });
  expect(first.activated).toBe(true);
  await flushValidations();
  const quiet = await sellingDeveloper(`plans-direct-${run}@example.com`, { name: `Plan Direct ${run}`, website: null, bio: "" });
  const quietProduct = await createTestProduct(quiet.id, `Sampler Plancheck ${run}`, `com.plans.sampler${run}`, { max_machines: 3 });
  const quietLicense = await issueLicense(getDb(), {
    productId: quietProduct.id,
    buyerEmail: `plans-${run}-d@example.com`,
    maxMachines: 3,
    source: "complimentary",
  });
  direct = { key: quietLicense.key, pluginId: quietProduct.pluginId };
  endpointId = `we_plans_${run}`;
  await getDb().sellerWebhookEndpoint.create({
    data: {
      id: endpointId,
      developerId: dev.id,
      url: "https://hooks.example.com/plans",
      secret: `whsec_${randomBytes(24).toString("base64")}`,
      events: [],
    },
  });
  plans = await explainer(env().DATABASE_URL);
});

afterAll(async () => {
  await plans?.close();
  // Nothing of this file's is left for other files' webhook deliveries.
  if (endpointId) {
    await getDb().webhookDelivery.deleteMany({ where: { targetId: endpointId } });
    await getDb().sellerWebhookEndpoint.deleteMany({ where: { id: endpointId } });
  }
  if (saved === undefined) Reflect.deleteProperty(process.env, "DATABASE_QUERY_EVENTS");
  else process.env.DATABASE_QUERY_EVENTS = saved;
  resetEnv();
  await disconnectDb();
});

/** The table names a statement touches, for checking that a case captured what it is about. */
const tablesOf = (queries: CapturedQuery[]) =>
  new Set(
    queries.flatMap((q) => [...q.sql.matchAll(/\b(?:FROM|JOIN|UPDATE|INTO)\s+(?:[`"](?:main|public)[`"]\.)?[`"](\w+)[`"]/gi)].map((m) => m[1]!)),
  );

/**
 * Runs `fn`, explains every statement it sent and fails on each full scan of a large table, naming the case, the
 * statement and the plan line; `touches` are tables the case must have sent statements for (so it cannot pass by
 * capturing nothing).
 */
async function expectNoFullScan(name: string, fn: () => Promise<unknown>, touches: string[]) {
  const { queries } = await captureQueries(fn);
  const planned = queries.filter(hasPlan);
  expect([...tablesOf(planned)], `${name}: the statements it sent`).toEqual(expect.arrayContaining(touches));
  if (!plans) throw new Error("no plans: the set-up failed");
  const scans: string[] = [];
  for (const query of planned) {
    const plan = await plans.explain(query);
    for (const line of plan.filter((l) => l.fullScan)) {
      scans.push(`${name} [${dbEngine()}] reads all of "${line.fullScan}": plan line "${line.text.trim()}" of ${oneLine(query.sql)}`);
    }
  }
  expect(scans, `${name}: full scans of large tables`).toEqual([]);
}

const oneLine = (sql: string) => sql.replace(/\s+/g, " ").trim();

describe("/validate", () => {
  it("reads the license by its key, with its product and its machines", async () => {
    licenseCache().clear();
    await expectNoFullScan(
      "/validate: the license by key",
      async () => {
        const answer = await validateLicense({ license_key: keys.validated, machine_fingerprint: machine, plugin_id: keys.pluginId });
        expect(answer.valid).toBe(true);
      },
      ["License", "Activation", "Product"],
    );
  });

  it("writes the machines' last-validated times by id", async () => {
    await expectNoFullScan("/validate: the flush of last-validated times", () => flushValidations(), ["Activation"]);
  });

  it("counts a failure into the hour's event row by its unique key", async () => {
    licenseCache().clear();
    const answer = await validateLicense({ license_key: keys.validated, machine_fingerprint: fingerprint(), plugin_id: keys.pluginId });
    expect(answer.code).toBe("FINGERPRINT_SCOPE_MISMATCH");
    await expectNoFullScan("/validate: a failure added to its hour's event row", () => flushValidations(), ["LicenseEvent"]);
  });
});

describe("/activate", () => {
  it("activates a new machine: the license read and every statement of its transaction", async () => {
    await expectNoFullScan(
      "/activate: a new machine",
      async () => {
        const answer = await activateMachine({
          license_key: keys.fresh,
          machine_fingerprint: fingerprint(),
          plugin_id: keys.pluginId,
          machine_name: "Studio",
        });
        expect(answer.code).toBe("ACTIVATED");
      },
      ["License", "Product", "Activation", "LicenseEvent", "SellerWebhookEndpoint", "WebhookDelivery"],
    );
  });

  it("activates a new machine of a seller without webhooks: the direct read and write", async () => {
    const { queries } = await captureQueries(async () => {
      await expectNoFullScan(
        "/activate: a new machine, direct",
        async () => {
          const answer = await activateMachine({ license_key: direct.key, machine_fingerprint: fingerprint(), plugin_id: direct.pluginId });
          expect(answer.code).toBe("ACTIVATED");
        },
        ["License", "Product", "Activation", "LicenseEvent", "SellerWebhookEndpoint"],
      );
    });
    // The case is about the direct path: one statement on PostgreSQL, the read and three writes on SQLite.
    expect(queries.filter(hasPlan)).toHaveLength(dbEngine() === "postgresql" ? 1 : 4);
  });
});

describe("catalog", () => {
  const listing = (input: Partial<Parameters<typeof listProducts>[0]>) => async () => {
    clearReadCache();
    const page = await listProducts({ page: 1, limit: 24, ...input });
    if (!input.search || input.search === SEARCH) expect(page.rows.length, "the case lists something").toBeGreaterThan(0);
  };

  it.each(ALL_SORTS)("lists products sorted by %s", async (sort) => {
    await expectNoFullScan(`listing, sorted by ${sort}`, listing({ sort }), ["Product", "Release"]);
  });

  it.each(ALL_SORTS)("lists a category sorted by %s", async (sort) => {
    await expectNoFullScan(`listing of ${CATEGORY}, sorted by ${sort}`, listing({ sort, category: CATEGORY }), ["Product"]);
  });

  it.each(ALL_SORTS)("searches, sorted by %s", async (sort) => {
    await expectNoFullScan(`search "${SEARCH}", sorted by ${sort}`, listing({ sort, search: SEARCH }), ["Product", "ProductSearch", "Release"]);
  });

  it.each(ALL_SORTS)("searches a category, sorted by %s", async (sort) => {
    await expectNoFullScan(`search "${SEARCH}" in ${CATEGORY}, sorted by ${sort}`, listing({ sort, search: SEARCH, category: CATEGORY }), [
      "Product",
      "ProductSearch",
    ]);
  });

  it("corrects a misspelt word from the catalogue's words", async () => {
    const engineWords = dbEngine() === "postgresql" ? "ProductSearchWord" : "ProductWordVocab";
    await expectNoFullScan(`search "${TYPO}" (a typo)`, listing({ search: TYPO }), ["Product", "ProductSearch", engineWords]);
  });

  it("counts the listed products of each category, with and without a search", async () => {
    const counts = async (search?: string) => {
      clearReadCache();
      await countCategories({ search });
    };
    await expectNoFullScan("category counts", () => counts(), ["Product"]);
    await expectNoFullScan(`category counts of search "${SEARCH}"`, () => counts(SEARCH), ["Product", "ProductSearch"]);
  });
});

describe("the seller's licenses page", () => {
  const page =
    (q: string | undefined, expected: (n: number) => boolean, more: { cursor?: string; limit?: number } = {}) =>
    async () => {
      const found = await searchLicenses(seller.id, { q, limit: 50, ...more });
      expect(expected(found.licenses.length), `licenses found for ${q ?? "no search"}`).toBe(true);
    };

  it("lists the newest licenses", async () => {
    await expectNoFullScan(
      "licenses page",
      page(undefined, (n) => n === 3),
      ["License", "Activation"],
    );
  });

  it("walks the seller's own index newest first, without sorting their licenses", async () => {
    const { queries } = await captureQueries(() => searchLicenses(seller.id, { limit: 50 }));
    const list = queries.filter(hasPlan).find((q) => /FROM\s+(?:[`"](?:main|public)[`"]\.)?[`"]License[`"]/i.test(q.sql) && /ORDER BY/i.test(q.sql));
    expect(list, "the license list's statement").toBeDefined();
    if (!plans) throw new Error("no plans: the set-up failed");
    const plan = (await plans.explain(list!)).map((l) => l.text).join("\n");
    expect(plan, plan).toContain("License_developerId_issuedAt_id_idx");
    // SQLite walks the index in order. PostgreSQL weighs costs: for this seller's three licenses it reads them by
    // the index and sorts the three; with a large seller it walks the index backwards (bench:scale, docs/benchmarks.md).
    if (dbEngine() === "sqlite") expect(plan, plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/i);
  });

  it("pages on with the cursor", async () => {
    const first = await searchLicenses(seller.id, { limit: 1 });
    expect(first.next_cursor).not.toBeNull();
    await expectNoFullScan(
      "licenses page 2",
      page(undefined, (n) => n === 1, { cursor: first.next_cursor!, limit: 1 }),
      ["License"],
    );
  });

  it("finds by part of a key, by part of the e-mail, by product name and by the whole key", async () => {
    await expectNoFullScan(
      "licenses search by part of a key",
      page(keys.fresh.slice(3, 9).toLowerCase(), (n) => n >= 1),
      ["License"],
    );
    await expectNoFullScan(
      "licenses search by e-mail",
      page(`plans-${run}-2@`, (n) => n === 1),
      ["License"],
    );
    await expectNoFullScan(
      "licenses search by product name",
      page(seller.productName.toLowerCase(), (n) => n === 3),
      ["License"],
    );
    await expectNoFullScan(
      "licenses search by a whole key",
      page(keys.fresh, (n) => n === 1),
      ["License"],
    );
  });

  it("lists the seller's products with their license counts", async () => {
    await expectNoFullScan("licenses page: the seller's products", () => listSellerProducts(seller.id), ["Product", "License"]);
  });
});
