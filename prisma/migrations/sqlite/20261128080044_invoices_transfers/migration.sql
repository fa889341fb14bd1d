-- CreateTable
CREATE TABLE "InvoiceCounter" (
    "developerId" TEXT NOT NULL PRIMARY KEY,
    "next" INTEGER NOT NULL DEFAULT 1
);

-- CreateTable
CREATE TABLE "Invoice" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "developerId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "orderId" TEXT NOT NULL,
    "buyerEmail" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "subtotalCents" INTEGER NOT NULL,
    "discountCents" INTEGER NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "taxCents" INTEGER,
    "totalCents" INTEGER NOT NULL,
    "sellerName" TEXT NOT NULL,
    "sellerContact" TEXT NOT NULL,
    "billingName" TEXT,
    "billingAddress" TEXT,
    "billingCountry" TEXT,
    "billingVatId" TEXT,
    "issuedAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "LicenseTransfer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "licenseId" TEXT NOT NULL,
    "fromEmail" TEXT NOT NULL,
    "toEmail" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acceptedAt" DATETIME
);

-- AlterTable
-- A plain added column: redefining Product (as the generated SQL did) would drop its content-version triggers and
-- trip over the License triggers that name it (see the sell_anywhere migration).
ALTER TABLE "Product" ADD COLUMN "allowTransfers" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_orderId_key" ON "Invoice"("orderId");

-- CreateIndex
CREATE INDEX "Invoice_buyerEmail_idx" ON "Invoice"("buyerEmail");

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_developerId_number_key" ON "Invoice"("developerId", "number");

-- CreateIndex
CREATE UNIQUE INDEX "LicenseTransfer_tokenHash_key" ON "LicenseTransfer"("tokenHash");

-- CreateIndex
CREATE INDEX "LicenseTransfer_licenseId_status_idx" ON "LicenseTransfer"("licenseId", "status");

-- CreateIndex
CREATE INDEX "LicenseTransfer_fromEmail_idx" ON "LicenseTransfer"("fromEmail");
