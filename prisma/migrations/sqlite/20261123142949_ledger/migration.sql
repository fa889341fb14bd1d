-- CreateTable
CREATE TABLE "LedgerEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "key" TEXT NOT NULL,
    "developerId" TEXT NOT NULL,
    "orderId" TEXT,
    "kind" TEXT NOT NULL,
    "amountMinor" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "memo" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LedgerEntry_developerId_fkey" FOREIGN KEY ("developerId") REFERENCES "Developer" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "LedgerEntry_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "LedgerEntry_key_key" ON "LedgerEntry"("key");

-- CreateIndex
CREATE INDEX "LedgerEntry_developerId_createdAt_idx" ON "LedgerEntry"("developerId", "createdAt");

-- CreateIndex
CREATE INDEX "LedgerEntry_orderId_idx" ON "LedgerEntry"("orderId");

-- CreateIndex
CREATE INDEX "LedgerEntry_kind_createdAt_idx" ON "LedgerEntry"("kind", "createdAt");

-- Backfill: every order already paid gets its sale and its platform fee, dated when it was paid, so existing
-- deployments keep their figures. Same keys as lib/ledger writes, so it never doubles an entry.
INSERT INTO "LedgerEntry" ("id", "key", "developerId", "orderId", "kind", "amountMinor", "currency", "createdAt")
SELECT 'backfill:sale:' || o."id", 'sale:' || o."id", p."developerId", o."id", 'sale', o."amountCents", o."currency", o."paidAt"
FROM "Order" o JOIN "Product" p ON p."id" = o."productId"
WHERE o."status" = 'paid' AND o."paidAt" IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM "LedgerEntry" l WHERE l."key" = 'sale:' || o."id");

INSERT INTO "LedgerEntry" ("id", "key", "developerId", "orderId", "kind", "amountMinor", "currency", "createdAt")
SELECT 'backfill:platform_fee:' || o."id", 'platform_fee:' || o."id", p."developerId", o."id", 'platform_fee', -o."feeCents", o."currency", o."paidAt"
FROM "Order" o JOIN "Product" p ON p."id" = o."productId"
WHERE o."status" = 'paid' AND o."paidAt" IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM "LedgerEntry" l WHERE l."key" = 'platform_fee:' || o."id");
