import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";
import { baseHeaders } from "@/lib/http/respond";
import { receiptQuerySchema } from "@/lib/receipts/schemas";
import { issueLicenseCredential, VC_MEDIA_TYPE } from "@/lib/verifiable/license-credential";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    query: receiptQuerySchema,
    rateLimit: ({ client, query }) => [[RULES.receipt, client], [RULES.key, query.key]],
    handler: async ({ query, requestId }) =>
      new Response(await issueLicenseCredential(query.key), { headers: { ...baseHeaders(requestId, "no-store"), "Content-Type": VC_MEDIA_TYPE } }),
  }),
});
