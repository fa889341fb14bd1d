-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN "providerCustomerId" TEXT;
ALTER TABLE "Subscription" ADD COLUMN "providerEndedAt" DATETIME;

-- CreateIndex
CREATE INDEX "Subscription_provider_status_idx" ON "Subscription"("provider", "status");
