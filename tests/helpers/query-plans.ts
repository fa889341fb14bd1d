import Database from "better-sqlite3";
import pg from "pg";
import type { CapturedQuery } from "@/lib/db";
import { engineOf, sqlitePath } from "@/lib/db/engine";

/**
 * Query plans of captured statements (lib/db.ts's captureQueries), on the engine of DATABASE_URL, with the same
 * parameters bound: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN (FORMAT JSON). Each plan comes as its lines,
 * each line marked when it reads a whole large table.
 */

/** The tables that grow with sales and the catalogue: a statement must never read one of them whole. */
const LARGE_TABLES = new Set([
  "License",
  "Activation",
  "Product",
  "LicenseEvent",
  "Order",
  "Review",
  "Release",
  // PostgreSQL's search tables: one row per product, and one per word of each product (on SQLite they are FTS5
  // virtual tables, which are searched through their own index).
  "ProductSearch",
  "ProductSearchWord",
]);

interface PlanLine {
  text: string;
  /** The whole of a large table: this line names it. */
  fullScan?: string;
}

export interface Explainer {
  explain(query: CapturedQuery): Promise<PlanLine[]>;
  close(): Promise<void>;
}

/** Statements that have a plan (not BEGIN, COMMIT, savepoints). */
export const hasPlan = (q: CapturedQuery) => /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(q.sql);

export async function explainer(url: string): Promise<Explainer> {
  return engineOf(url) === "postgresql" ? postgresExplainer(url) : sqliteExplainer(url);
}

// ---------------------------------------------------------------------------------------------------------------------
// SQLite

const KEYWORDS = new Set(["WHERE", "ON", "JOIN", "LEFT", "INNER", "CROSS", "SET", "VALUES", "ORDER", "GROUP", "LIMIT", "AS", "USING"]);

/** The table behind each name a plan line may use for it: its alias in the statement, or the table itself. */
function tablesByName(sql: string): Map<string, string> {
  const names = new Map<string, string>();
  const ref = /\b(?:FROM|JOIN|UPDATE|INTO)\s+(?:[`"]main[`"]\.)?[`"]?(\w+)[`"]?(?:\s+(?:AS\s+)?([A-Za-z_]\w*))?/gi;
  for (const m of sql.matchAll(ref)) {
    const table = m[1]!;
    names.set(table, table);
    const alias = m[2];
    if (alias && !KEYWORDS.has(alias.toUpperCase())) names.set(alias, table);
  }
  return names;
}

/**
 * `SCAN <table>` reads a table whole, and so does `SCAN <table> USING [COVERING] INDEX …`: that walks a whole index
 * instead (a LIMIT may stop the walk early, but the plan does not say so, so it is not taken on trust). `SEARCH`
 * reads only what an index finds; a virtual table (FTS5) is read through its own index.
 */
function sqliteFullScan(detail: string, tables: Map<string, string>): string | undefined {
  const m = /^SCAN (?:main\.)?(\S+)(.*)$/.exec(detail);
  if (!m || /\bVIRTUAL TABLE\b/.test(m[2]!)) return undefined;
  const table = tables.get(m[1]!) ?? m[1]!;
  return LARGE_TABLES.has(table) ? table : undefined;
}

/** better-sqlite3 binds numbers, strings, bigints, buffers and null; Prisma's event reports booleans as such. */
const sqliteValue = (v: unknown) => (typeof v === "boolean" ? Number(v) : v);

function sqliteExplainer(url: string): Explainer {
  // Plans only: nothing is written. The file's own statistics (none: the application never runs ANALYZE) are the
  // ones production has, so the plans are production's.
  const db = new Database(sqlitePath(url), { readonly: true, fileMustExist: true });
  return {
    explain: (query) => {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.params.map(sqliteValue)) as {
        id: number;
        parent: number;
        detail: string;
      }[];
      const tables = tablesByName(query.sql);
      const depth = new Map<number, number>([[0, 0]]);
      return Promise.resolve(
        rows.map((r) => {
          const level = (depth.get(r.parent) ?? 0) + 1;
          depth.set(r.id, level);
          return { text: `${"  ".repeat(level - 1)}${r.detail}`, fullScan: sqliteFullScan(r.detail, tables) };
        }),
      );
    },
    close: () => {
      db.close();
      return Promise.resolve();
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// PostgreSQL

interface PgNode {
  "Node Type": string;
  "Relation Name"?: string;
  Alias?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  Filter?: string;
  "Join Filter"?: string;
  "Hash Cond"?: string;
  Plans?: PgNode[];
}

function describeNode(n: PgNode): string {
  const relation = n["Relation Name"];
  const parts = [n["Node Type"]];
  if (n["Index Name"]) parts.push(`using "${n["Index Name"]}"`);
  if (relation) parts.push(`on "${relation}"${n.Alias && n.Alias !== relation ? ` ${n.Alias}` : ""}`);
  for (const key of ["Index Cond", "Recheck Cond", "Hash Cond", "Join Filter", "Filter"] as const) if (n[key]) parts.push(`(${key}: ${n[key]})`);
  return parts.join(" ");
}

/**
 * A Seq Scan reads a table whole; an Index Scan or Index Only Scan without an Index Cond walks a whole index (what a
 * plan without sequential scans may pick instead). Bitmap scans always have a condition.
 */
function pgFullScan(n: PgNode): string | undefined {
  const relation = n["Relation Name"];
  if (!relation || !LARGE_TABLES.has(relation)) return undefined;
  const type = n["Node Type"];
  if (type === "Seq Scan") return relation;
  if ((type === "Index Scan" || type === "Index Only Scan") && !n["Index Cond"]) {
    // A text search over ProductSearch: PostgreSQL weighs its GIN index against walking the rows by how many it
    // expects to match, and in the shared test database (every test file's products, many of them named alike) a
    // common word can make the walk its cheaper estimate. That is the planner's choice on those statistics, not a
    // missing index; any other whole-index walk counts.
    if (relation === "ProductSearch" && /document @@/.test(n.Filter ?? "")) return undefined;
    return relation;
  }
  return undefined;
}

function* walk(n: PgNode, level = 0): Generator<PlanLine> {
  yield { text: `${"  ".repeat(level)}${describeNode(n)}`, fullScan: pgFullScan(n) };
  for (const child of n.Plans ?? []) yield* walk(child, level + 1);
}

/**
 * One session in one transaction, rolled back at close: a few thousand products and tens of thousands of licenses
 * are added (invisible to every other session) and analysed, so the planner sees tables of a real size; then
 * sequential scans are disabled, so a Seq Scan that remains means no index can serve the statement at all.
 */
async function postgresExplainer(url: string): Promise<Explainer> {
  const client = new pg.Client({ connectionString: url });
  const analyze = `ANALYZE ${SEEDED.map((t) => `"${t}"`).join(", ")}`;
  await client.connect();
  try {
    await client.query("BEGIN");
    for (const statement of SEED) await client.query(statement);
    await client.query(analyze);
    await client.query("SET LOCAL enable_seqscan = off");
  } catch (error) {
    await client.end();
    throw error;
  }
  return {
    explain: async (query) => {
      await client.query("SAVEPOINT plan");
      try {
        const result = await client.query<{ "QUERY PLAN": { Plan: PgNode }[] }>(`EXPLAIN (FORMAT JSON) ${query.sql}`, query.params);
        await client.query("RELEASE SAVEPOINT plan");
        return [...walk(result.rows[0]!["QUERY PLAN"][0]!.Plan)];
      } catch (error) {
        await client.query("ROLLBACK TO SAVEPOINT plan");
        throw error;
      }
    },
    close: async () => {
      try {
        await client.query("ROLLBACK");
        // The row counts ANALYZE wrote are not rolled back (PostgreSQL updates them in place): count again.
        await client.query(analyze);
      } finally {
        await client.end();
      }
    },
  };
}

const PRODUCTS = 3_000;
const LICENSES = 20_000;
const WORDS = "tape delay chorus reverb synth drum mixer meter scope shader sprite atlas vault ledger notes clip board pixel grain sketch".split(" ");
const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(", ")}]`;
const categories = "ARRAY['audio-plugins', 'desktop-apps', 'game-assets', '3d-vfx', 'dev-tools', 'creative-tools']";
const keyPart = (from: number) => `upper(substr(md5('qp-key-' || g), ${from}, 4))`;

const SEEDED = ["Developer", "Product", "ProductSearch", "ProductSearchWord", "License", "Activation", "LicenseEvent", "Release"];

/** Rows of a catalogue in use: 300 sellers, their products (one in ten removed), licenses with machines and events. */
const SEED = [
  `INSERT INTO "Developer" ("id", "name", "email", "updatedAt")
   SELECT 'qp-dev-' || g, 'Plan Studio ' || g, 'qp-dev-' || g || '@example.org', now() FROM generate_series(1, 300) g`,
  `INSERT INTO "Product" ("id", "pluginId", "developerId", "name", "tagline", "description", "priceCents", "category",
     "maxMachines", "platforms", "compatibility", "inputs", "outputs", "images", "downloadUrl", "iconUrl", "status",
     "salesCount", "ratingCount", "ratingAverage", "createdAt", "updatedAt")
   SELECT 'qp-prod-' || g, 'com.qpseed.p' || g, 'qp-dev-' || (g % 300 + 1),
     initcap((${words})[g % ${WORDS.length} + 1]) || ' ' || initcap((${words})[(g / ${WORDS.length}) % ${WORDS.length} + 1]) || ' ' || g,
     'A ' || (${words})[(g * 7) % ${WORDS.length} + 1] || ' tool', 'Seeded for the query-plan test.', (g * 37) % 10000,
     (${categories})[g % 6 + 1], 3, '["linux"]', '[]', '[]', '[]', '[]', 'https://example.com/download',
     '/icons/tape-warmth.svg', CASE WHEN g % 10 = 0 THEN 'removed' ELSE 'active' END, g % 97, g % 13, (g % 50) / 10.0,
     now() - g * interval '1 minute', now()
   FROM generate_series(1, ${PRODUCTS}) g`,
  `INSERT INTO "ProductSearch" ("productId", "name", "tagline", "developer", "tags", "description")
   SELECT p."id", p."name", p."tagline", d."name", p."category" || ' ' || p."pluginId", p."description"
   FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId" WHERE p."id" LIKE 'qp-prod-%'`,
  `INSERT INTO "ProductSearchWord" ("productId", "word")
   SELECT DISTINCT s."productId", w.word FROM "ProductSearch" s,
     unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
       regexp_replace(concat_ws(' ', s."name", s."tagline", s."developer", s."tags"), '[[:punct:]]+', ' ', 'g')))) AS w(word)
   WHERE s."productId" LIKE 'qp-prod-%'`,
  `INSERT INTO "Release" ("id", "productId", "version", "major", "minor", "patch", "channel", "status", "publishedAt", "updatedAt")
   SELECT 'qp-rel-' || g || '-' || v, 'qp-prod-' || g, '1.' || v || '.0', 1, v, 0, 'stable', 'published', now(), now()
   FROM generate_series(1, ${PRODUCTS}) g, generate_series(0, 2) v`,
  `INSERT INTO "License" ("id", "key", "productId", "buyerEmail", "maxMachines", "activeMachines", "source", "issuedAt", "updatedAt")
   SELECT 'qp-lic-' || g, ${keyPart(1)} || '-' || ${keyPart(5)} || '-' || ${keyPart(9)} || '-' || ${keyPart(13)},
     'qp-prod-' || (g % ${PRODUCTS} + 1), 'buyer' || g || '@example.org', 3, 1, 'purchase', now() - g * interval '1 minute', now()
   FROM generate_series(1, ${LICENSES}) g`,
  `INSERT INTO "Activation" ("id", "licenseId", "fingerprint", "activatedAt", "lastValidatedAt")
   SELECT 'qp-act-' || g, 'qp-lic-' || g, md5('qp-fp-' || g) || md5('qp-fp2-' || g), now(), now() FROM generate_series(1, ${LICENSES}) g`,
  `INSERT INTO "LicenseEvent" ("id", "licenseId", "type", "actorType", "detail", "createdAt", "lastAt")
   SELECT 'qp-ev-' || g || '-' || t, 'qp-lic-' || g, (ARRAY['issued', 'activated'])[t], 'app', '{}', now(), now()
   FROM generate_series(1, ${LICENSES}) g, generate_series(1, 2) t`,
];
