-- AlterTable
ALTER TABLE "Product" ADD COLUMN     "bundleProrate" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "isBundle" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "License" ADD COLUMN     "bundleOrderId" TEXT;

-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "checkoutLinkId" TEXT,
ADD COLUMN     "upgradeFromLicenseId" TEXT,
ADD COLUMN     "upgradeOfferId" TEXT;

-- CreateTable
CREATE TABLE "CheckoutLink" (
    "id" TEXT NOT NULL,
    "developerId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "couponCode" TEXT,
    "interval" TEXT,
    "expiresAt" TIMESTAMP(3),
    "maxUses" INTEGER,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "visits" INTEGER NOT NULL DEFAULT 0,
    "checkouts" INTEGER NOT NULL DEFAULT 0,
    "sales" INTEGER NOT NULL DEFAULT 0,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CheckoutLink_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EmbedOrigin" (
    "id" TEXT NOT NULL,
    "developerId" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "verifiedAt" TIMESTAMP(3),
    "checkedAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EmbedOrigin_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BundleItem" (
    "id" TEXT NOT NULL,
    "bundleId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "BundleItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UpgradeOffer" (
    "id" TEXT NOT NULL,
    "developerId" TEXT NOT NULL,
    "fromProductId" TEXT NOT NULL,
    "toProductId" TEXT NOT NULL,
    "pricing" TEXT NOT NULL,
    "priceCents" INTEGER,
    "retireSource" BOOLEAN NOT NULL DEFAULT true,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UpgradeOffer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DeviceAuthorization" (
    "id" TEXT NOT NULL,
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
    "lastPolledAt" TIMESTAMP(3),
    "slowDowns" INTEGER NOT NULL DEFAULT 0,
    "buyerEmail" TEXT,
    "licenseId" TEXT,
    "orderId" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "approvedAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DeviceAuthorization_pkey" PRIMARY KEY ("id")
);

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

-- CreateIndex
CREATE INDEX "License_bundleOrderId_idx" ON "License"("bundleOrderId");

-- CreateIndex
CREATE INDEX "Order_checkoutLinkId_status_idx" ON "Order"("checkoutLinkId", "status");

-- CreateIndex
CREATE INDEX "Order_upgradeFromLicenseId_idx" ON "Order"("upgradeFromLicenseId");

-- AddForeignKey
ALTER TABLE "License" ADD CONSTRAINT "License_bundleOrderId_fkey" FOREIGN KEY ("bundleOrderId") REFERENCES "Order"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_checkoutLinkId_fkey" FOREIGN KEY ("checkoutLinkId") REFERENCES "CheckoutLink"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_upgradeOfferId_fkey" FOREIGN KEY ("upgradeOfferId") REFERENCES "UpgradeOffer"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CheckoutLink" ADD CONSTRAINT "CheckoutLink_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CheckoutLink" ADD CONSTRAINT "CheckoutLink_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "EmbedOrigin" ADD CONSTRAINT "EmbedOrigin_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BundleItem" ADD CONSTRAINT "BundleItem_bundleId_fkey" FOREIGN KEY ("bundleId") REFERENCES "Product"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BundleItem" ADD CONSTRAINT "BundleItem_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UpgradeOffer" ADD CONSTRAINT "UpgradeOffer_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UpgradeOffer" ADD CONSTRAINT "UpgradeOffer_fromProductId_fkey" FOREIGN KEY ("fromProductId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "UpgradeOffer" ADD CONSTRAINT "UpgradeOffer_toProductId_fkey" FOREIGN KEY ("toProductId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeviceAuthorization" ADD CONSTRAINT "DeviceAuthorization_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
