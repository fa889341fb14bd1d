-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "planChangeFrom" TEXT;
