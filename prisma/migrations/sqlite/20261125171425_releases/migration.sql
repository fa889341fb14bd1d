-- CreateTable
CREATE TABLE "Release" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "productId" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "major" INTEGER NOT NULL,
    "minor" INTEGER NOT NULL,
    "patch" INTEGER NOT NULL,
    "prerelease" TEXT NOT NULL DEFAULT '',
    "channel" TEXT NOT NULL DEFAULT 'stable',
    "notes" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'draft',
    "publishedAt" DATETIME,
    "yankedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Release_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Artifact" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "releaseId" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT '',
    "filename" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "sha512" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "minisign" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "storageKey" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Artifact_releaseId_fkey" FOREIGN KEY ("releaseId") REFERENCES "Release" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Product" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "pluginId" TEXT NOT NULL,
    "developerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tagline" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL,
    "priceCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'usd',
    "category" TEXT NOT NULL,
    "maxMachines" INTEGER NOT NULL,
    "seatModel" TEXT NOT NULL DEFAULT 'per-machine',
    "trialAvailable" BOOLEAN NOT NULL DEFAULT false,
    "trialDays" INTEGER NOT NULL DEFAULT 0,
    "platforms" JSONB NOT NULL,
    "compatibility" JSONB NOT NULL,
    "inputs" JSONB NOT NULL,
    "outputs" JSONB NOT NULL,
    "images" JSONB NOT NULL,
    "minVersion" TEXT,
    "downloadUrl" TEXT NOT NULL,
    "iconUrl" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "moderationReason" TEXT,
    "searchText" TEXT NOT NULL DEFAULT '',
    "salesCount" INTEGER NOT NULL DEFAULT 0,
    "licenseFileTtlDays" INTEGER NOT NULL DEFAULT 30,
    "updatePolicy" TEXT NOT NULL DEFAULT 'all',
    "updateDays" INTEGER,
    "systemRequirements" TEXT NOT NULL DEFAULT '',
    "demoLinks" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Product_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Product" ("category", "compatibility", "createdAt", "currency", "description", "developerId", "downloadUrl", "iconUrl", "id", "images", "inputs", "licenseFileTtlDays", "maxMachines", "minVersion", "moderationReason", "name", "outputs", "platforms", "pluginId", "priceCents", "salesCount", "searchText", "seatModel", "status", "tagline", "trialAvailable", "trialDays", "updatedAt") SELECT "category", "compatibility", "createdAt", "currency", "description", "developerId", "downloadUrl", "iconUrl", "id", "images", "inputs", "licenseFileTtlDays", "maxMachines", "minVersion", "moderationReason", "name", "outputs", "platforms", "pluginId", "priceCents", "salesCount", "searchText", "seatModel", "status", "tagline", "trialAvailable", "trialDays", "updatedAt" FROM "Product";
DROP TABLE "Product";
ALTER TABLE "new_Product" RENAME TO "Product";
CREATE UNIQUE INDEX "Product_pluginId_key" ON "Product"("pluginId");
CREATE INDEX "Product_status_createdAt_idx" ON "Product"("status", "createdAt");
CREATE INDEX "Product_status_priceCents_idx" ON "Product"("status", "priceCents");
CREATE INDEX "Product_status_salesCount_idx" ON "Product"("status", "salesCount");
CREATE INDEX "Product_status_name_idx" ON "Product"("status", "name");
CREATE INDEX "Product_status_category_createdAt_idx" ON "Product"("status", "category", "createdAt");
CREATE INDEX "Product_developerId_idx" ON "Product"("developerId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Release_productId_status_publishedAt_idx" ON "Release"("productId", "status", "publishedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Release_productId_version_key" ON "Release"("productId", "version");

-- CreateIndex
CREATE UNIQUE INDEX "Artifact_storageKey_key" ON "Artifact"("storageKey");

-- CreateIndex
CREATE UNIQUE INDEX "Artifact_releaseId_platform_format_key" ON "Artifact"("releaseId", "platform", "format");
