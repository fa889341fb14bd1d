-- AlterTable
ALTER TABLE "Coupon" ADD COLUMN     "duration" TEXT NOT NULL DEFAULT 'once',
ADD COLUMN     "durationMonths" INTEGER;

-- AlterTable
ALTER TABLE "Product" ADD COLUMN     "fallbackAfterMonths" INTEGER,
ADD COLUMN     "graceDays" INTEGER NOT NULL DEFAULT 3,
ADD COLUMN     "monthlyPriceCents" INTEGER,
ADD COLUMN     "pricingModel" TEXT NOT NULL DEFAULT 'one_time',
ADD COLUMN     "renewalPriceCents" INTEGER,
ADD COLUMN     "subscriptionTrialDays" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "yearlyPriceCents" INTEGER;

-- AlterTable
ALTER TABLE "License" ADD COLUMN     "billing" TEXT,
ADD COLUMN     "updatesUntil" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "interval" TEXT,
ADD COLUMN     "periodEnd" TIMESTAMP(3),
ADD COLUMN     "periodStart" TIMESTAMP(3),
ADD COLUMN     "subscriptionId" TEXT,
ADD COLUMN     "unitAmountCents" INTEGER;

-- CreateTable
CREATE TABLE "Subscription" (
    "id" TEXT NOT NULL,
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
    "billingAnchor" TIMESTAMP(3) NOT NULL,
    "currentPeriodStart" TIMESTAMP(3) NOT NULL,
    "currentPeriodEnd" TIMESTAMP(3) NOT NULL,
    "trialEnd" TIMESTAMP(3),
    "graceDays" INTEGER NOT NULL,
    "pastDueSince" TIMESTAMP(3),
    "canceledAt" TIMESTAMP(3),
    "canceledBy" TEXT,
    "endedAt" TIMESTAMP(3),
    "endReason" TEXT,
    "paidPeriods" INTEGER NOT NULL DEFAULT 0,
    "paidMonths" INTEGER NOT NULL DEFAULT 0,
    "remindedFor" TIMESTAMP(3),
    "testCard" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Subscription_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_licenseId_key" ON "Subscription"("licenseId");

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_providerSubscriptionId_key" ON "Subscription"("providerSubscriptionId");

-- CreateIndex
CREATE INDEX "Subscription_status_currentPeriodEnd_idx" ON "Subscription"("status", "currentPeriodEnd");

-- CreateIndex
CREATE INDEX "Subscription_developerId_createdAt_idx" ON "Subscription"("developerId", "createdAt");

-- CreateIndex
CREATE INDEX "Subscription_buyerEmail_idx" ON "Subscription"("buyerEmail");

-- CreateIndex
CREATE UNIQUE INDEX "Order_subscriptionId_periodStart_key" ON "Order"("subscriptionId", "periodStart");

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_licenseId_fkey" FOREIGN KEY ("licenseId") REFERENCES "License"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_couponId_fkey" FOREIGN KEY ("couponId") REFERENCES "Coupon"("id") ON DELETE SET NULL ON UPDATE CASCADE;
