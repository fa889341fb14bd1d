-- AlterTable
ALTER TABLE "License" ADD COLUMN     "trialOf" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "License_trialOf_key" ON "License"("trialOf");
