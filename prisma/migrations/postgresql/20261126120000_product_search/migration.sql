-- Full-text search over products (lib/marketplace/search.ts). Written by hand: Prisma's schema language has no
-- tsvector columns or trigram indexes. The application writes a product's rows here in the transaction that writes
-- the product or renames its developer (lib/marketplace/search-index.ts), as it does on SQLite.

CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- One row per product; the document is stemmed with the english configuration and weighted A (name) to D
-- (description), which ts_rank uses. Punctuation separates words, as on SQLite and in a query: "com.example.reverb"
-- is three words, not one host name.
CREATE TABLE "ProductSearch" (
    "productId" TEXT NOT NULL PRIMARY KEY REFERENCES "Product" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "name" TEXT NOT NULL,
    "tagline" TEXT NOT NULL,
    "developer" TEXT NOT NULL,
    "tags" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "document" tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, regexp_replace("name", '[[:punct:]]+', ' ', 'g')), 'A') ||
        setweight(to_tsvector('english'::regconfig, regexp_replace("tagline", '[[:punct:]]+', ' ', 'g')), 'B') ||
        setweight(to_tsvector('english'::regconfig, regexp_replace("developer" || ' ' || "tags", '[[:punct:]]+', ' ', 'g')), 'C') ||
        setweight(to_tsvector('english'::regconfig, regexp_replace("description", '[[:punct:]]+', ' ', 'g')), 'D')
    ) STORED
);
CREATE INDEX "ProductSearch_document_idx" ON "ProductSearch" USING GIN ("document");

-- The words of a product's name, tagline, developer and tags as written (not stemmed): the words a typo is corrected
-- to, found by trigram similarity.
CREATE TABLE "ProductSearchWord" (
    "productId" TEXT NOT NULL REFERENCES "Product" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    "word" TEXT NOT NULL,
    PRIMARY KEY ("productId", "word")
);
CREATE INDEX "ProductSearchWord_word_idx" ON "ProductSearchWord" USING GIN ("word" gin_trgm_ops);

-- Backfill: every product there is.
INSERT INTO "ProductSearch" ("productId", "name", "tagline", "developer", "tags", "description")
SELECT p."id", p."name", p."tagline", d."name",
       concat_ws(' ', p."category", p."pluginId", p."compatibility"::text, p."inputs"::text, p."outputs"::text, p."platforms"::text),
       p."description"
FROM "Product" p JOIN "Developer" d ON d."id" = p."developerId";

INSERT INTO "ProductSearchWord" ("productId", "word")
SELECT DISTINCT s."productId", w.word
FROM "ProductSearch" s,
     unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
         regexp_replace(concat_ws(' ', s."name", s."tagline", s."developer", s."tags"), '[[:punct:]]+', ' ', 'g')))) AS w(word);
