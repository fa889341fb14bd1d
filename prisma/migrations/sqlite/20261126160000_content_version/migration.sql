-- The version of what the storefront shows (lib/cache/content-version.ts): pages and the catalog are served from a
-- cache (lib/http/page-cache.ts) for as long as this number is unchanged, on every instance, because each instance
-- reads it per request. Written by hand: triggers bump it on every write to the tables the pages are made of, so no
-- write path can forget it. A migration that redefines one of these tables on SQLite (Prisma's "RedefineTables")
-- drops its triggers: tests/integration/page-cache.test.ts checks that every one exists after all migrations.

CREATE TABLE "ContentVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL
);
INSERT INTO "ContentVersion" ("id", "version") VALUES (1, 0);
CREATE TRIGGER "ContentVersion_Product_insert" AFTER INSERT ON "Product"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Product_update" AFTER UPDATE ON "Product"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Product_delete" AFTER DELETE ON "Product"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Developer_insert" AFTER INSERT ON "Developer"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Developer_update" AFTER UPDATE ON "Developer"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Developer_delete" AFTER DELETE ON "Developer"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Release_insert" AFTER INSERT ON "Release"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Release_update" AFTER UPDATE ON "Release"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Release_delete" AFTER DELETE ON "Release"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Artifact_insert" AFTER INSERT ON "Artifact"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Artifact_update" AFTER UPDATE ON "Artifact"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Artifact_delete" AFTER DELETE ON "Artifact"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Review_insert" AFTER INSERT ON "Review"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Review_update" AFTER UPDATE ON "Review"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_Review_delete" AFTER DELETE ON "Review"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
