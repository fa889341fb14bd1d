-- CreateTable
CREATE TABLE "ProductMedia" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "productId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "width" INTEGER,
    "height" INTEGER,
    "durationMs" INTEGER,
    "alt" TEXT NOT NULL DEFAULT '',
    "caption" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ProductMedia_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ProductMedia_productId_kind_position_idx" ON "ProductMedia"("productId", "kind", "position");

-- CreateIndex
CREATE INDEX "ProductMedia_key_idx" ON "ProductMedia"("key");

-- Written by hand: product pages and cards show media, so a write to it raises the content version as a write to
-- products does (migration content_version; lib/cache/content-version.ts).
CREATE TRIGGER "ContentVersion_ProductMedia_insert" AFTER INSERT ON "ProductMedia"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_ProductMedia_update" AFTER UPDATE ON "ProductMedia"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
CREATE TRIGGER "ContentVersion_ProductMedia_delete" AFTER DELETE ON "ProductMedia"
BEGIN
    UPDATE "ContentVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
