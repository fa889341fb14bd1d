-- AlterTable
-- Written as ADD COLUMN rather than Prisma's redefinition of the table: redefining Developer would drop its
-- ContentVersion triggers (migration content_version), and a new column with a constant default needs none of it.
ALTER TABLE "Developer" ADD COLUMN "saleEmails" TEXT NOT NULL DEFAULT 'each';
