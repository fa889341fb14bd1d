-- Full-text search over products (lib/marketplace/search.ts). Written by hand: Prisma's schema language has no
-- FTS5 tables. The application writes a product's rows here in the transaction that writes the product or renames
-- its developer (lib/marketplace/search-index.ts); there are no triggers, because a trigger on one table that names
-- another makes SQLite refuse the table rebuilds Prisma's own migrations do (DROP TABLE, then RENAME).

-- One row per product, stemmed (porter) and without diacritics; bm25 weighs the columns (name first).
CREATE VIRTUAL TABLE "ProductSearch" USING fts5(
    "productId" UNINDEXED,
    "name",
    "tagline",
    "developer",
    "tags",
    "description",
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- The same product's name, tagline, developer and tags as written (not stemmed): the words a typo is corrected to.
CREATE VIRTUAL TABLE "ProductWord" USING fts5(
    "productId" UNINDEXED,
    "words",
    detail = none,
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE "ProductWordVocab" USING fts5vocab("ProductWord", 'row');

-- Backfill: every product there is.
INSERT INTO "ProductSearch" ("productId", "name", "tagline", "developer", "tags", "description")
SELECT p."id", p."name", p."tagline", d."name",
       p."category" || ' ' || p."pluginId" || ' ' || p."compatibility" || ' ' || p."inputs" || ' ' || p."outputs" || ' ' || p."platforms",
       p."description"
FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId";

INSERT INTO "ProductWord" ("productId", "words")
SELECT "productId", "name" || ' ' || "tagline" || ' ' || "developer" || ' ' || "tags" FROM "ProductSearch";
