-- The seller of each license's product, on the license (lib/seller-api/licenses.ts lists a seller's licenses newest
-- first by walking License_developerId_issuedAt_id_idx, whatever the number of their products). Kept by triggers,
-- never by the application: an insert takes it from the product, a product changing hands carries its licenses
-- along, and a write of anything else to it is put back. A migration that redefines "License" or "Product" on
-- SQLite (Prisma's "RedefineTables") drops these triggers: tests/integration/license-developer.test.ts checks them.

-- AlterTable
ALTER TABLE "License" ADD COLUMN "developerId" TEXT;

-- CreateIndex
CREATE INDEX "License_developerId_issuedAt_id_idx" ON "License"("developerId", "issuedAt", "id");

UPDATE "License" SET "developerId" = (SELECT "developerId" FROM "Product" WHERE "Product"."id" = "License"."productId");

CREATE TRIGGER "License_developer_insert" AFTER INSERT ON "License"
BEGIN
    UPDATE "License" SET "developerId" = (SELECT "developerId" FROM "Product" WHERE "id" = NEW."productId") WHERE "id" = NEW."id";
END;
CREATE TRIGGER "License_developer_update" AFTER UPDATE OF "productId", "developerId" ON "License"
WHEN NEW."developerId" IS NOT (SELECT "developerId" FROM "Product" WHERE "id" = NEW."productId")
BEGIN
    UPDATE "License" SET "developerId" = (SELECT "developerId" FROM "Product" WHERE "id" = NEW."productId") WHERE "id" = NEW."id";
END;
CREATE TRIGGER "License_developer_product" AFTER UPDATE OF "developerId" ON "Product"
WHEN NEW."developerId" IS NOT OLD."developerId"
BEGIN
    UPDATE "License" SET "developerId" = NEW."developerId" WHERE "productId" = NEW."id";
END;
