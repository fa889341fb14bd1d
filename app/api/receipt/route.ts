import { CACHE } from "@/lib/http/headers";
import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";
import { issueReceipt } from "@/lib/receipts/issue-receipt";
import { receiptQuerySchema, verifyReceiptRequestSchema } from "@/lib/receipts/schemas";
import { verifyReceipt } from "@/lib/receipts/verify-receipt";
import { verifyLicenseCredential } from "@/lib/verifiable/license-credential";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    query: receiptQuerySchema,
    rateLimit: ({ client, query }) => [[RULES.receipt, client], [RULES.key, query.key]],
    handler: ({ query }) => issueReceipt(query.key),
  }),
  POST: route({
    body: verifyReceiptRequestSchema,
    cache: CACHE.none,
    handler: ({ body }) => ("credential" in body ? verifyLicenseCredential(body.credential) : verifyReceipt(body)),
  }),
});
