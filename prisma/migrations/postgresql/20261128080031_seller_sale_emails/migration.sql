-- AlterTable
ALTER TABLE "Developer" ADD COLUMN     "saleEmails" TEXT NOT NULL DEFAULT 'each';
