-- AlterTable
ALTER TABLE "License" ADD COLUMN "billing" TEXT;
ALTER TABLE "License" ADD COLUMN "updatesUntil" DATETIME;

-- CreateTable
CREATE TABLE "Subscription" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL DEFAULT 'subscription',
    "productId" TEXT NOT NULL,
    "developerId" TEXT NOT NULL,
    "buyerEmail" TEXT NOT NULL,
    "licenseId" TEXT,
    "provider" TEXT NOT NULL,
    "providerSubscriptionId" TEXT,
    "interval" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "unitAmountCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "couponId" TEXT,
    "couponCode" TEXT,
    "couponDuration" TEXT,
    "couponMonths" INTEGER,
    "status" TEXT NOT NULL,
    "billingAnchor" DATETIME NOT NULL,
    "currentPeriodStart" DATETIME NOT NULL,
    "currentPeriodEnd" DATETIME NOT NULL,
    "trialEnd" DATETIME,
    "graceDays" INTEGER NOT NULL,
    "pastDueSince" DATETIME,
    "canceledAt" DATETIME,
    "canceledBy" TEXT,
    "endedAt" DATETIME,
    "endReason" TEXT,
    "paidPeriods" INTEGER NOT NULL DEFAULT 0,
    "paidMonths" INTEGER NOT NULL DEFAULT 0,
    "remindedFor" DATETIME,
    "testCard" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Subscription_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Subscription_licenseId_fkey" FOREIGN KEY ("licenseId") REFERENCES "License" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Subscription_couponId_fkey" FOREIGN KEY ("couponId") REFERENCES "Coupon" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);


-- AlterTable: columns added in place, not by redefining the tables, so the triggers on "Product" (content version,
-- license_developer) stay as they are.
ALTER TABLE "Coupon" ADD COLUMN "duration" TEXT NOT NULL DEFAULT 'once';
ALTER TABLE "Coupon" ADD COLUMN "durationMonths" INTEGER;
ALTER TABLE "Product" ADD COLUMN "pricingModel" TEXT NOT NULL DEFAULT 'one_time';
ALTER TABLE "Product" ADD COLUMN "monthlyPriceCents" INTEGER;
ALTER TABLE "Product" ADD COLUMN "yearlyPriceCents" INTEGER;
ALTER TABLE "Product" ADD COLUMN "subscriptionTrialDays" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Product" ADD COLUMN "graceDays" INTEGER NOT NULL DEFAULT 3;
ALTER TABLE "Product" ADD COLUMN "fallbackAfterMonths" INTEGER;
ALTER TABLE "Product" ADD COLUMN "renewalPriceCents" INTEGER;
ALTER TABLE "Order" ADD COLUMN "subscriptionId" TEXT REFERENCES "Subscription" ("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "Order" ADD COLUMN "interval" TEXT;
ALTER TABLE "Order" ADD COLUMN "unitAmountCents" INTEGER;
ALTER TABLE "Order" ADD COLUMN "periodStart" DATETIME;
ALTER TABLE "Order" ADD COLUMN "periodEnd" DATETIME;

-- CreateIndex
CREATE UNIQUE INDEX "Order_subscriptionId_periodStart_key" ON "Order"("subscriptionId", "periodStart");
CREATE UNIQUE INDEX "Subscription_licenseId_key" ON "Subscription"("licenseId");
CREATE UNIQUE INDEX "Subscription_providerSubscriptionId_key" ON "Subscription"("providerSubscriptionId");
CREATE INDEX "Subscription_status_currentPeriodEnd_idx" ON "Subscription"("status", "currentPeriodEnd");
CREATE INDEX "Subscription_developerId_createdAt_idx" ON "Subscription"("developerId", "createdAt");
CREATE INDEX "Subscription_buyerEmail_idx" ON "Subscription"("buyerEmail");
