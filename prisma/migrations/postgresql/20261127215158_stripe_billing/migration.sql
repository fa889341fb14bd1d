-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "providerCustomerId" TEXT,
ADD COLUMN     "providerEndedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Subscription_provider_status_idx" ON "Subscription"("provider", "status");
