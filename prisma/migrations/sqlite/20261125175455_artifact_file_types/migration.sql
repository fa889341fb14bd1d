-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Artifact" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "releaseId" TEXT NOT NULL,
    "platform" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT '',
    "fileType" TEXT NOT NULL DEFAULT '',
    "filename" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "sha512" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "minisign" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "storageKey" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Artifact_releaseId_fkey" FOREIGN KEY ("releaseId") REFERENCES "Release" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Artifact" ("contentType", "createdAt", "filename", "format", "id", "keyId", "minisign", "platform", "releaseId", "sha256", "sha512", "signature", "size", "storageKey") SELECT "contentType", "createdAt", "filename", "format", "id", "keyId", "minisign", "platform", "releaseId", "sha256", "sha512", "signature", "size", "storageKey" FROM "Artifact";
DROP TABLE "Artifact";
ALTER TABLE "new_Artifact" RENAME TO "Artifact";
CREATE UNIQUE INDEX "Artifact_storageKey_key" ON "Artifact"("storageKey");
CREATE UNIQUE INDEX "Artifact_releaseId_platform_format_fileType_key" ON "Artifact"("releaseId", "platform", "format", "fileType");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
