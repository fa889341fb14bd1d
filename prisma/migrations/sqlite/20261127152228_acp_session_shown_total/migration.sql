-- AlterTable
ALTER TABLE "AcpCheckoutSession" ADD COLUMN "shownTotalCents" INTEGER;
