-- CreateTable
CREATE TABLE "CheckoutLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "developerId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "couponCode" TEXT,
    "interval" TEXT,
    "expiresAt" DATETIME,
    "maxUses" INTEGER,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "visits" INTEGER NOT NULL DEFAULT 0,
    "checkouts" INTEGER NOT NULL DEFAULT 0,
    "sales" INTEGER NOT NULL DEFAULT 0,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "CheckoutLink_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "CheckoutLink_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EmbedOrigin" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "developerId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "verifiedAt" DATETIME,
    "checkedAt" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "EmbedOrigin_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BundleItem" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "bundleId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "BundleItem_bundleId_fkey" FOREIGN KEY ("bundleId") REFERENCES "Product" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "BundleItem_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "UpgradeOffer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "developerId" TEXT NOT NULL,
    "fromProductId" TEXT NOT NULL,
    "toProductId" TEXT NOT NULL,
    "pricing" TEXT NOT NULL,
    "priceCents" INTEGER,
    "retireSource" BOOLEAN NOT NULL DEFAULT true,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "UpgradeOffer_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "UpgradeOffer_fromProductId_fkey" FOREIGN KEY ("fromProductId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "UpgradeOffer_toProductId_fkey" FOREIGN KEY ("toProductId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DeviceAuthorization" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "deviceCodeHash" TEXT NOT NULL,
    "userCode" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "machineFingerprint" TEXT NOT NULL,
    "machineName" TEXT,
    "platform" TEXT,
    "appVersion" TEXT,
    "client" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "interval" INTEGER NOT NULL DEFAULT 5,
    "lastPolledAt" DATETIME,
    "slowDowns" INTEGER NOT NULL DEFAULT 0,
    "buyerEmail" TEXT,
    "licenseId" TEXT,
    "orderId" TEXT,
    "expiresAt" DATETIME NOT NULL,
    "approvedAt" DATETIME,
    "completedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DeviceAuthorization_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- RedefineTables
-- Redefining Product and License drops their triggers (migrations content_version and license_developer), and the
-- License triggers name Product, which SQLite refuses to leave dangling while Product is renamed into place: they are
-- dropped first and all made again once the tables are redefined.
DROP TRIGGER IF EXISTS "License_developer_insert";
DROP TRIGGER IF EXISTS "License_developer_update";
DROP TRIGGER IF EXISTS "License_developer_product";
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
    "pricingModel" TEXT NOT NULL DEFAULT 'one_time',
    "monthlyPriceCents" INTEGER,
    "yearlyPriceCents" INTEGER,
    "subscriptionTrialDays" INTEGER NOT NULL DEFAULT 0,
    "graceDays" INTEGER NOT NULL DEFAULT 3,
    "fallbackAfterMonths" INTEGER,
    "renewalPriceCents" INTEGER,
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
    "isBundle" BOOLEAN NOT NULL DEFAULT false,
    "bundleProrate" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Product_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
INSERT INTO "new_Product" ("category", "compatibility", "createdAt", "currency", "demoLinks", "description", "developerId", "downloadUrl", "fallbackAfterMonths", "featuredAt", "graceDays", "iconUrl", "id", "images", "inputs", "licenseFileTtlDays", "maxMachines", "minVersion", "moderationReason", "monthlyPriceCents", "name", "outputs", "platforms", "pluginId", "priceCents", "pricingModel", "ratingAverage", "ratingCount", "renewalPriceCents", "salesCount", "searchText", "seatModel", "status", "subscriptionTrialDays", "systemRequirements", "tagline", "trialAvailable", "trialDays", "updateDays", "updatePolicy", "updatedAt", "yearlyPriceCents") SELECT "category", "compatibility", "createdAt", "currency", "demoLinks", "description", "developerId", "downloadUrl", "fallbackAfterMonths", "featuredAt", "graceDays", "iconUrl", "id", "images", "inputs", "licenseFileTtlDays", "maxMachines", "minVersion", "moderationReason", "monthlyPriceCents", "name", "outputs", "platforms", "pluginId", "priceCents", "pricingModel", "ratingAverage", "ratingCount", "renewalPriceCents", "salesCount", "searchText", "seatModel", "status", "subscriptionTrialDays", "systemRequirements", "tagline", "trialAvailable", "trialDays", "updateDays", "updatePolicy", "updatedAt", "yearlyPriceCents" FROM "Product";
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
CREATE TABLE "new_License" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "buyerEmail" TEXT NOT NULL,
    "maxMachines" INTEGER NOT NULL,
    "activeMachines" INTEGER NOT NULL DEFAULT 0,
    "isActive" BOOLEAN NOT NULL DEFAULT true,
    "revokedAt" DATETIME,
    "revokedReason" TEXT,
    "revocation" TEXT,
    "trial" BOOLEAN NOT NULL DEFAULT false,
    "source" TEXT NOT NULL DEFAULT 'purchase',
    "orderId" TEXT,
    "trialOf" TEXT,
    "statusIndex" INTEGER,
    "issuedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME,
    "billing" TEXT,
    "updatesUntil" DATETIME,
    "bundleOrderId" TEXT,
    "updatedAt" DATETIME NOT NULL,
    "developerId" TEXT,
    CONSTRAINT "License_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "License_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "License_bundleOrderId_fkey" FOREIGN KEY ("bundleOrderId") REFERENCES "Order" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_License" ("activeMachines", "billing", "buyerEmail", "developerId", "expiresAt", "id", "isActive", "issuedAt", "key", "maxMachines", "orderId", "productId", "revocation", "revokedAt", "revokedReason", "source", "statusIndex", "trial", "trialOf", "updatedAt", "updatesUntil") SELECT "activeMachines", "billing", "buyerEmail", "developerId", "expiresAt", "id", "isActive", "issuedAt", "key", "maxMachines", "orderId", "productId", "revocation", "revokedAt", "revokedReason", "source", "statusIndex", "trial", "trialOf", "updatedAt", "updatesUntil" FROM "License";
DROP TABLE "License";
ALTER TABLE "new_License" RENAME TO "License";
CREATE UNIQUE INDEX "License_key_key" ON "License"("key");
CREATE UNIQUE INDEX "License_orderId_key" ON "License"("orderId");
CREATE UNIQUE INDEX "License_trialOf_key" ON "License"("trialOf");
CREATE UNIQUE INDEX "License_statusIndex_key" ON "License"("statusIndex");
CREATE INDEX "License_buyerEmail_idx" ON "License"("buyerEmail");
CREATE INDEX "License_productId_issuedAt_idx" ON "License"("productId", "issuedAt");
CREATE INDEX "License_developerId_issuedAt_id_idx" ON "License"("developerId", "issuedAt", "id");
CREATE INDEX "License_bundleOrderId_idx" ON "License"("bundleOrderId");
CREATE TABLE "new_Order" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "productId" TEXT NOT NULL,
    "buyerEmail" TEXT NOT NULL,
    "agentId" TEXT,
    "provider" TEXT NOT NULL,
    "providerSessionId" TEXT,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "subtotalCents" INTEGER NOT NULL DEFAULT 0,
    "discountCents" INTEGER NOT NULL DEFAULT 0,
    "couponId" TEXT,
    "couponCode" TEXT,
    "amountCents" INTEGER NOT NULL,
    "feeCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'usd',
    "taxCents" INTEGER,
    "refundedCents" INTEGER NOT NULL DEFAULT 0,
    "disputeStatus" TEXT,
    "providerPaymentId" TEXT,
    "payoutAccountId" TEXT,
    "subscriptionId" TEXT,
    "interval" TEXT,
    "unitAmountCents" INTEGER,
    "renewsLicenseId" TEXT,
    "planChangeFrom" TEXT,
    "checkoutLinkId" TEXT,
    "upgradeOfferId" TEXT,
    "upgradeFromLicenseId" TEXT,
    "periodStart" DATETIME,
    "periodEnd" DATETIME,
    "status" TEXT NOT NULL DEFAULT 'open',
    "checkoutUrl" TEXT,
    "paidAt" DATETIME,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Order_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Order_couponId_fkey" FOREIGN KEY ("couponId") REFERENCES "Coupon" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Order_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Order_checkoutLinkId_fkey" FOREIGN KEY ("checkoutLinkId") REFERENCES "CheckoutLink" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Order_upgradeOfferId_fkey" FOREIGN KEY ("upgradeOfferId") REFERENCES "UpgradeOffer" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Order" ("agentId", "amountCents", "buyerEmail", "checkoutUrl", "couponCode", "couponId", "createdAt", "currency", "discountCents", "disputeStatus", "expiresAt", "feeCents", "id", "interval", "paidAt", "payoutAccountId", "periodEnd", "periodStart", "planChangeFrom", "productId", "provider", "providerPaymentId", "providerSessionId", "quantity", "refundedCents", "renewsLicenseId", "status", "subscriptionId", "subtotalCents", "taxCents", "unitAmountCents", "updatedAt") SELECT "agentId", "amountCents", "buyerEmail", "checkoutUrl", "couponCode", "couponId", "createdAt", "currency", "discountCents", "disputeStatus", "expiresAt", "feeCents", "id", "interval", "paidAt", "payoutAccountId", "periodEnd", "periodStart", "planChangeFrom", "productId", "provider", "providerPaymentId", "providerSessionId", "quantity", "refundedCents", "renewsLicenseId", "status", "subscriptionId", "subtotalCents", "taxCents", "unitAmountCents", "updatedAt" FROM "Order";
DROP TABLE "Order";
ALTER TABLE "new_Order" RENAME TO "Order";
CREATE UNIQUE INDEX "Order_providerSessionId_key" ON "Order"("providerSessionId");
CREATE UNIQUE INDEX "Order_providerPaymentId_key" ON "Order"("providerPaymentId");
CREATE INDEX "Order_checkoutLinkId_status_idx" ON "Order"("checkoutLinkId", "status");
CREATE INDEX "Order_upgradeFromLicenseId_idx" ON "Order"("upgradeFromLicenseId");
CREATE INDEX "Order_productId_createdAt_idx" ON "Order"("productId", "createdAt");
CREATE INDEX "Order_buyerEmail_idx" ON "Order"("buyerEmail");
CREATE INDEX "Order_status_expiresAt_idx" ON "Order"("status", "expiresAt");
CREATE UNIQUE INDEX "Order_subscriptionId_periodStart_key" ON "Order"("subscriptionId", "periodStart");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- The triggers the redefinitions dropped, as content_version and license_developer made them.
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

-- CreateIndex
CREATE INDEX "CheckoutLink_productId_idx" ON "CheckoutLink"("productId");

-- CreateIndex
CREATE UNIQUE INDEX "CheckoutLink_developerId_slug_key" ON "CheckoutLink"("developerId", "slug");

-- CreateIndex
CREATE INDEX "EmbedOrigin_origin_status_idx" ON "EmbedOrigin"("origin", "status");

-- CreateIndex
CREATE UNIQUE INDEX "EmbedOrigin_developerId_origin_key" ON "EmbedOrigin"("developerId", "origin");

-- CreateIndex
CREATE INDEX "BundleItem_productId_idx" ON "BundleItem"("productId");

-- CreateIndex
CREATE UNIQUE INDEX "BundleItem_bundleId_productId_key" ON "BundleItem"("bundleId", "productId");

-- CreateIndex
CREATE INDEX "UpgradeOffer_toProductId_idx" ON "UpgradeOffer"("toProductId");

-- CreateIndex
CREATE UNIQUE INDEX "UpgradeOffer_fromProductId_toProductId_key" ON "UpgradeOffer"("fromProductId", "toProductId");

-- CreateIndex
CREATE UNIQUE INDEX "DeviceAuthorization_deviceCodeHash_key" ON "DeviceAuthorization"("deviceCodeHash");

-- CreateIndex
CREATE UNIQUE INDEX "DeviceAuthorization_userCode_key" ON "DeviceAuthorization"("userCode");

-- CreateIndex
CREATE INDEX "DeviceAuthorization_status_expiresAt_idx" ON "DeviceAuthorization"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "DeviceAuthorization_orderId_idx" ON "DeviceAuthorization"("orderId");
