import { Prisma } from "../generated/sqlite/client.ts";
import { dbEngine, type Db } from "../db.ts";

/** A client or the transaction a product write runs in: the index rows are written in the same transaction. */
type Writer = Pick<Db, "$executeRaw">;

/** Which products to re-index: some by id, or all of one developer's (after a rename). */
type IndexScope = { productIds: string[] } | { developerId: string };

/**
 * Rewrites the search index rows (the product_search migrations) of the products in scope from their current rows:
 * call it in the transaction that writes a product's name, tagline, description, category, plugin id or tags, and in
 * the one that renames a developer. Status is not indexed (a search joins Product and asks for listed ones), so
 * unlisting, removing or suspending needs no call.
 */
export async function syncProductSearch(db: Writer, scope: IndexScope): Promise<void> {
  const where =
    "productIds" in scope
      ? scope.productIds.length > 0
        ? Prisma.sql`p."id" IN (${Prisma.join(scope.productIds)})`
        : null
      : Prisma.sql`p."developerId" = ${scope.developerId}`;
  if (!where) return;
  if (dbEngine() === "postgresql") await syncPostgres(db, where);
  else await syncSqlite(db, where);
}

// FTS5 rows have no key but their rowid, so a product's rows are found by its id (an unindexed column) and replaced.
async function syncSqlite(db: Writer, where: Prisma.Sql) {
  const ids = Prisma.sql`SELECT p."id" FROM "Product" p WHERE ${where}`;
  await db.$executeRaw`DELETE FROM "ProductSearch" WHERE "productId" IN (${ids})`;
  await db.$executeRaw`DELETE FROM "ProductWord" WHERE "productId" IN (${ids})`;
  await db.$executeRaw`
    INSERT INTO "ProductSearch" ("productId", "name", "tagline", "developer", "tags", "description")
    SELECT p."id", p."name", p."tagline", d."name",
           p."category" || ' ' || p."pluginId" || ' ' || p."compatibility" || ' ' || p."inputs" || ' ' || p."outputs" || ' ' || p."platforms",
           p."description"
    FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId"
    WHERE ${where}`;
  await db.$executeRaw`
    INSERT INTO "ProductWord" ("productId", "words")
    SELECT s."productId", s."name" || ' ' || s."tagline" || ' ' || s."developer" || ' ' || s."tags"
    FROM "ProductSearch" s WHERE s."productId" IN (${ids})`;
}

// The developer row is read FOR SHARE: a rename committing meanwhile is waited for and its new name indexed, rather
// than this write putting the old one back over the rename's.
async function syncPostgres(db: Writer, where: Prisma.Sql) {
  await db.$executeRaw`
    INSERT INTO "ProductSearch" ("productId", "name", "tagline", "developer", "tags", "description")
    SELECT p."id", p."name", p."tagline", d."name",
           concat_ws(' ', p."category", p."pluginId", p."compatibility"::text, p."inputs"::text, p."outputs"::text, p."platforms"::text),
           p."description"
    FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId"
    WHERE ${where}
    FOR SHARE OF d
    ON CONFLICT ("productId") DO UPDATE SET
      "name" = EXCLUDED."name", "tagline" = EXCLUDED."tagline", "developer" = EXCLUDED."developer",
      "tags" = EXCLUDED."tags", "description" = EXCLUDED."description"`;
  await db.$executeRaw`DELETE FROM "ProductSearchWord" WHERE "productId" IN (SELECT p."id" FROM "Product" p WHERE ${where})`;
  await db.$executeRaw`
    INSERT INTO "ProductSearchWord" ("productId", "word")
    SELECT DISTINCT s."productId", w.word
    FROM "ProductSearch" s JOIN "Product" p ON p."id" = s."productId",
         unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
           regexp_replace(concat_ws(' ', s."name", s."tagline", s."developer", s."tags"), '[[:punct:]]+', ' ', 'g')))) AS w(word)
    WHERE ${where}
    ON CONFLICT DO NOTHING`;
}
