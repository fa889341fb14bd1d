-- CreateTable
CREATE TABLE "IdempotencyRecord" (
    "id" TEXT NOT NULL,
    "operationId" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "response" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdempotencyRecord_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AgentPlatform" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "keyPrefix" TEXT NOT NULL,
    "webhookUrl" TEXT,
    "webhookSecret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "AgentPlatform_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AcpCheckoutSession" (
    "id" TEXT NOT NULL,
    "platformId" TEXT,
    "status" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "quantity" INTEGER NOT NULL,
    "couponCode" TEXT,
    "currency" TEXT NOT NULL,
    "buyer" JSONB,
    "metadata" JSONB,
    "orderId" TEXT,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AcpCheckoutSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DelegatedPayment" (
    "id" TEXT NOT NULL,
    "platformId" TEXT,
    "checkoutSessionId" TEXT NOT NULL,
    "maxAmountCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "card" JSONB NOT NULL,
    "metadata" JSONB,
    "usedAt" TIMESTAMP(3),
    "orderId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DelegatedPayment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WebhookDelivery" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "targetId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lockedUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "lastStatus" INTEGER,
    "dedupeKey" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "WebhookDelivery_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "IdempotencyRecord_expiresAt_idx" ON "IdempotencyRecord"("expiresAt");

-- CreateIndex
CREATE UNIQUE INDEX "AgentPlatform_keyHash_key" ON "AgentPlatform"("keyHash");

-- CreateIndex
CREATE UNIQUE INDEX "AcpCheckoutSession_orderId_key" ON "AcpCheckoutSession"("orderId");

-- CreateIndex
CREATE INDEX "AcpCheckoutSession_platformId_createdAt_idx" ON "AcpCheckoutSession"("platformId", "createdAt");

-- CreateIndex
CREATE INDEX "AcpCheckoutSession_status_expiresAt_idx" ON "AcpCheckoutSession"("status", "expiresAt");

-- CreateIndex
CREATE INDEX "DelegatedPayment_checkoutSessionId_idx" ON "DelegatedPayment"("checkoutSessionId");

-- CreateIndex
CREATE UNIQUE INDEX "WebhookDelivery_dedupeKey_key" ON "WebhookDelivery"("dedupeKey");

-- CreateIndex
CREATE INDEX "WebhookDelivery_status_nextAttemptAt_idx" ON "WebhookDelivery"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "WebhookDelivery_targetId_createdAt_idx" ON "WebhookDelivery"("targetId", "createdAt");

-- AddForeignKey
ALTER TABLE "AcpCheckoutSession" ADD CONSTRAINT "AcpCheckoutSession_platformId_fkey" FOREIGN KEY ("platformId") REFERENCES "AgentPlatform"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
