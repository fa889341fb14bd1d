import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";
import { baseHeaders } from "@/lib/http/respond";
import { issueLicenseFile, licenseFileQuerySchema } from "@/lib/verifiable/license-file";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    query: licenseFileQuerySchema,
    rateLimit: ({ client, query }) => [[RULES.receipt, client], [RULES.key, query.key]],
    handler: async ({ query, requestId }) => {
      const file = await issueLicenseFile(query);
      return new Response(file.text, {
        headers: { ...baseHeaders(requestId, "no-store"), "Content-Type": "text/plain; charset=utf-8", "Content-Disposition": 'attachment; filename="license.lic"' },
      });
    },
  }),
});
