import { Prisma } from "../generated/sqlite/client.ts";
import { dbEngine, getDb } from "../db.ts";
import type { Engine } from "../db/engine.ts";
import { searchTerms } from "./search-text.ts";
import { editDistance, spellingVariants, typoAllowance } from "./spelling.ts";

/**
 * A search as SQL over `"Product" p`: `from` joins the index (as `s`), `where` keeps the matching products and `rank`
 * orders them best first. Built by `compileSearch`; used by the listing and the category counts alike.
 */
export interface CompiledSearch {
  from: Prisma.Sql;
  where: Prisma.Sql;
  rank: Prisma.Sql;
}

// bm25 weights of the FTS5 columns (productId, name, tagline, developer, tags, description): a word in the name
// counts ten times one in the description. PostgreSQL's document carries weights A to D for the same columns.
const SQLITE_RANK = Prisma.sql`bm25(s."ProductSearch", 0.0, 10.0, 4.0, 3.0, 2.0, 1.0)`;
// At most this many catalogue words are tried for one misspelt word.
const MAX_CORRECTIONS = 4;
// Trigram similarity a catalogue word needs to be considered as a correction on PostgreSQL: low, because a one-letter
// swap in a four-letter word shares only one trigram in nine; the edit distance decides.
const TRIGRAM_FLOOR = "0.1";

/**
 * Compiles a search: each word (searchTerms) matches itself stemmed, as a prefix, and in its other spellings
 * (spellingVariants); a word no listed product contains is also tried as the catalogue words within its typo
 * allowance. Every word must match. Null when the search has no words: it matches nothing.
 */
export async function compileSearch(search: string): Promise<CompiledSearch | null> {
  const words = searchTerms(search);
  if (words.length === 0) return null;
  const engine = dbEngine();
  const groups = await Promise.all(words.map((word) => alternatives(engine, word)));
  return engine === "postgresql" ? postgresSearch(groups) : sqliteSearch(groups);
}

/** The spellings a query word stands for: its variants, and when none is in the catalogue, its corrections too. */
async function alternatives(engine: Engine, word: string): Promise<string[]> {
  const own = spellingVariants(word);
  if (typoAllowance(word) === 0 || (await anyListedMatch(engine, own))) return own;
  const corrections = await correct(engine, word);
  return [...new Set([...own, ...corrections.flatMap(spellingVariants)])];
}

async function anyListedMatch(engine: Engine, spellings: string[]): Promise<boolean> {
  if (engine === "postgresql") {
    // The matches come from the search index first (OFFSET 0 keeps the planner from merging the subquery): joined
    // directly under LIMIT 1, PostgreSQL bets on an early match and walks both primary keys, every row for a word
    // nothing has (tests/integration/query-plans.test.ts).
    const rows = await getDb().$queryRaw<unknown[]>`
      SELECT 1 FROM (
        SELECT s."productId" FROM "ProductSearch" s CROSS JOIN (SELECT ${postgresQuery([spellings])} AS q) sq
        WHERE s."document" @@ sq.q OFFSET 0
      ) m JOIN "Product" p ON p."id" = m."productId" WHERE p."status" = 'active' LIMIT 1`;
    return rows.length > 0;
  }
  const search = sqliteSearch([spellings]);
  const rows = await getDb().$queryRaw<unknown[]>`
    SELECT 1 FROM "Product" p ${search.from} WHERE p."status" = 'active' AND ${search.where} LIMIT 1`;
  return rows.length > 0;
}

/** Catalogue words (as sellers wrote them, not stemmed) within the word's typo allowance, nearest first. */
async function correct(engine: Engine, word: string): Promise<string[]> {
  const max = typoAllowance(word);
  const plain = withoutDiacritics(word);
  const length = Array.from(plain).length;
  const db = getDb();
  const candidates =
    engine === "postgresql"
      ? // set_config(…, true) lasts until the end of this transaction only, so pooled connections keep the default.
        (
          await db.$transaction([
            db.$queryRaw`SELECT set_config('pg_trgm.similarity_threshold', ${TRIGRAM_FLOOR}, true)`,
            db.$queryRaw<{ term: string }[]>`SELECT DISTINCT "word" AS "term" FROM "ProductSearchWord" WHERE "word" % ${plain}`,
          ])
        )[1]
      : await db.$queryRaw<{ term: string }[]>`
          SELECT "term" FROM "ProductWordVocab" WHERE length("term") BETWEEN ${length - max} AND ${length + max}`;
  return candidates
    .map(({ term }) => ({ term, distance: editDistance(plain, withoutDiacritics(term), max) }))
    .filter((c) => c.distance <= max && /^[\p{L}\p{M}\p{N}]+$/u.test(c.term))
    .sort((a, b) => a.distance - b.distance || a.term.localeCompare(b.term))
    .slice(0, MAX_CORRECTIONS)
    .map((c) => c.term);
}

const withoutDiacritics = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "");

/**
 * FTS5: each spelling is a quoted string (the tokenizer stems it; nothing inside quotes is syntax) and the same as a
 * prefix; the spellings of a word are ORed, the words ANDed.
 */
function sqliteSearch(groups: string[][]): CompiledSearch {
  const quote = (w: string) => `"${w.replaceAll('"', '""')}"`;
  const match = groups.map((spellings) => `(${spellings.map((w) => `${quote(w)} OR ${quote(w)}*`).join(" OR ")})`).join(" AND ");
  return {
    from: Prisma.sql`JOIN "ProductSearch" s ON s."productId" = p."id"`,
    // An aliased FTS5 table is matched through its hidden column, named like the table.
    where: Prisma.sql`s."ProductSearch" MATCH ${match}`,
    rank: Prisma.sql`${SQLITE_RANK} ASC`,
  };
}

/**
 * PostgreSQL: each spelling is stemmed by plainto_tsquery (which reads no syntax) or taken as a prefix; the spellings
 * of a word are ORed (||), the words ANDed (&&). The query is computed once per statement in a lateral subquery.
 */
/** The tsquery of some words, each given as its spellings (any of which matches). */
function postgresQuery(groups: string[][]) {
  const spelling = (w: string) =>
    // A word is letters and digits only (searchTerms), so quoting it makes a valid prefix lexeme.
    Prisma.sql`(plainto_tsquery('english'::regconfig, ${w}) || to_tsquery('simple'::regconfig, ${`'${w.replaceAll("'", "''")}':*`}))`;
  const word = (spellings: string[]) => Prisma.sql`(${Prisma.join(spellings.map(spelling), " || ")})`;
  return Prisma.join(groups.map(word), " && ");
}

function postgresSearch(groups: string[][]): CompiledSearch {
  const query = postgresQuery(groups);
  return {
    from: Prisma.sql`JOIN "ProductSearch" s ON s."productId" = p."id" CROSS JOIN (SELECT ${query} AS q) sq`,
    where: Prisma.sql`s."document" @@ sq.q`,
    rank: Prisma.sql`ts_rank(s."document", sq.q) DESC`,
  };
}
