-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN "blockmapKey" TEXT;
ALTER TABLE "Artifact" ADD COLUMN "blockmapSize" INTEGER;

-- CreateIndex
CREATE UNIQUE INDEX "Artifact_blockmapKey_key" ON "Artifact"("blockmapKey");
