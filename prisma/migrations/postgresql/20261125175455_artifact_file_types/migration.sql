-- DropIndex
DROP INDEX "Artifact_releaseId_platform_format_key";

-- AlterTable
ALTER TABLE "Artifact" ADD COLUMN     "fileType" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE UNIQUE INDEX "Artifact_releaseId_platform_format_fileType_key" ON "Artifact"("releaseId", "platform", "format", "fileType");
