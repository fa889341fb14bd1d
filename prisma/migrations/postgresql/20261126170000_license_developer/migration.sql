-- The seller of each license's product, on the license (lib/seller-api/licenses.ts lists a seller's licenses newest
-- first by walking License_developerId_issuedAt_id_idx, whatever the number of their products). Kept by triggers,
-- never by the application: an insert takes it from the product, a product changing hands carries its licenses
-- along, and a write of anything else to it is put back (tests/integration/license-developer.test.ts).

-- AlterTable
ALTER TABLE "License" ADD COLUMN     "developerId" TEXT;

-- CreateIndex
CREATE INDEX "License_developerId_issuedAt_id_idx" ON "License"("developerId", "issuedAt", "id");

UPDATE "License" l SET "developerId" = p."developerId" FROM "Product" p WHERE p."id" = l."productId";

CREATE FUNCTION "license_developer"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW."developerId" := (SELECT "developerId" FROM "Product" WHERE "id" = NEW."productId");
    RETURN NEW;
END
$$;
CREATE TRIGGER "License_developer" BEFORE INSERT OR UPDATE OF "productId", "developerId" ON "License"
    FOR EACH ROW EXECUTE FUNCTION "license_developer"();

CREATE FUNCTION "product_developer_licenses"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "License" SET "developerId" = NEW."developerId" WHERE "productId" = NEW."id";
    RETURN NULL;
END
$$;
CREATE TRIGGER "License_developer_product" AFTER UPDATE OF "developerId" ON "Product"
    FOR EACH ROW WHEN (NEW."developerId" IS DISTINCT FROM OLD."developerId") EXECUTE FUNCTION "product_developer_licenses"();
