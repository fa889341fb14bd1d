-- AlterTable
ALTER TABLE "License" ADD COLUMN "statusIndex" INTEGER;

-- CreateIndex
CREATE UNIQUE INDEX "License_statusIndex_key" ON "License"("statusIndex");
