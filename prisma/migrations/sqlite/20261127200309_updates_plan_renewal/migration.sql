-- AlterTable
ALTER TABLE "Order" ADD COLUMN "renewsLicenseId" TEXT;
