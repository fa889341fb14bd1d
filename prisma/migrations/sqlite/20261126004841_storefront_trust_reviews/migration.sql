-- CreateTable
CREATE TABLE "Review" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "licenseId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "rating" INTEGER NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "body" TEXT NOT NULL DEFAULT '',
    "authorName" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "editedAt" DATETIME,
    "sellerReply" TEXT,
    "repliedAt" DATETIME,
    "hiddenAt" DATETIME,
    "hiddenReason" TEXT,
    "hiddenBy" TEXT,
    CONSTRAINT "Review_licenseId_fkey" FOREIGN KEY ("licenseId") REFERENCES "License" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Review_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Developer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "website" TEXT,
    "bio" TEXT NOT NULL DEFAULT '',
    "refundPolicy" TEXT NOT NULL DEFAULT '',
    "supportEmail" TEXT,
    "supportUrl" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "suspendedAt" DATETIME,
    "suspendedReason" TEXT
);
INSERT INTO "new_Developer" ("bio", "createdAt", "email", "id", "name", "suspendedAt", "suspendedReason", "updatedAt", "website") SELECT "bio", "createdAt", "email", "id", "name", "suspendedAt", "suspendedReason", "updatedAt", "website" FROM "Developer";
DROP TABLE "Developer";
ALTER TABLE "new_Developer" RENAME TO "Developer";
CREATE UNIQUE INDEX "Developer_email_key" ON "Developer"("email");
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
    "ratingCount" INTEGER NOT NULL DEFAULT 0,
    "ratingAverage" REAL NOT NULL DEFAULT 0,
    "featuredAt" DATETIME,
    "licenseFileTtlDays" INTEGER NOT NULL DEFAULT 30,
    "updatePolicy" TEXT NOT NULL DEFAULT 'all',
    "updateDays" INTEGER,
    "systemRequirements" TEXT NOT NULL DEFAULT '',
    "demoLinks" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Product_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Product" ("category", "compatibility", "createdAt", "currency", "demoLinks", "description", "developerId", "downloadUrl", "iconUrl", "id", "images", "inputs", "licenseFileTtlDays", "maxMachines", "minVersion", "moderationReason", "name", "outputs", "platforms", "pluginId", "priceCents", "salesCount", "searchText", "seatModel", "status", "systemRequirements", "tagline", "trialAvailable", "trialDays", "updateDays", "updatePolicy", "updatedAt") SELECT "category", "compatibility", "createdAt", "currency", "demoLinks", "description", "developerId", "downloadUrl", "iconUrl", "id", "images", "inputs", "licenseFileTtlDays", "maxMachines", "minVersion", "moderationReason", "name", "outputs", "platforms", "pluginId", "priceCents", "salesCount", "searchText", "seatModel", "status", "systemRequirements", "tagline", "trialAvailable", "trialDays", "updateDays", "updatePolicy", "updatedAt" FROM "Product";
DROP TABLE "Product";
ALTER TABLE "new_Product" RENAME TO "Product";
CREATE UNIQUE INDEX "Product_pluginId_key" ON "Product"("pluginId");
CREATE INDEX "Product_status_createdAt_idx" ON "Product"("status", "createdAt");
CREATE INDEX "Product_status_ratingAverage_idx" ON "Product"("status", "ratingAverage");
CREATE INDEX "Product_status_featuredAt_idx" ON "Product"("status", "featuredAt");
CREATE INDEX "Product_status_priceCents_idx" ON "Product"("status", "priceCents");
CREATE INDEX "Product_status_salesCount_idx" ON "Product"("status", "salesCount");
CREATE INDEX "Product_status_name_idx" ON "Product"("status", "name");
CREATE INDEX "Product_status_category_createdAt_idx" ON "Product"("status", "category", "createdAt");
CREATE INDEX "Product_developerId_idx" ON "Product"("developerId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Review_licenseId_key" ON "Review"("licenseId");

-- CreateIndex
CREATE INDEX "Review_productId_hiddenAt_createdAt_idx" ON "Review"("productId", "hiddenAt", "createdAt");

-- CreateIndex
CREATE INDEX "Review_productId_hiddenAt_rating_idx" ON "Review"("productId", "hiddenAt", "rating");
