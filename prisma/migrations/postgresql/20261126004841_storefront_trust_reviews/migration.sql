-- AlterTable
ALTER TABLE "Developer" ADD COLUMN     "refundPolicy" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "supportEmail" TEXT,
ADD COLUMN     "supportUrl" TEXT;

-- AlterTable
ALTER TABLE "Product" ADD COLUMN     "featuredAt" TIMESTAMP(3),
ADD COLUMN     "ratingAverage" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "ratingCount" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "Review" (
    "id" TEXT NOT NULL,
    "licenseId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "rating" INTEGER NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "body" TEXT NOT NULL DEFAULT '',
    "authorName" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "editedAt" TIMESTAMP(3),
    "sellerReply" TEXT,
    "repliedAt" TIMESTAMP(3),
    "hiddenAt" TIMESTAMP(3),
    "hiddenReason" TEXT,
    "hiddenBy" TEXT,

    CONSTRAINT "Review_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Review_licenseId_key" ON "Review"("licenseId");

-- CreateIndex
CREATE INDEX "Review_productId_hiddenAt_createdAt_idx" ON "Review"("productId", "hiddenAt", "createdAt");

-- CreateIndex
CREATE INDEX "Review_productId_hiddenAt_rating_idx" ON "Review"("productId", "hiddenAt", "rating");

-- CreateIndex
CREATE INDEX "Product_status_ratingAverage_idx" ON "Product"("status", "ratingAverage");

-- CreateIndex
CREATE INDEX "Product_status_featuredAt_idx" ON "Product"("status", "featuredAt");

-- AddForeignKey
ALTER TABLE "Review" ADD CONSTRAINT "Review_licenseId_fkey" FOREIGN KEY ("licenseId") REFERENCES "License"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Review" ADD CONSTRAINT "Review_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
