import { z } from "zod";
import { methods, route } from "@/lib/transports/route";
import { artifactDownloadLocation } from "@/lib/updates/downloads";

/**
 * A license holder's download link for one release build (lib/updates/downloads.ts): checks the link, the license
 * and its entitlement, then redirects to a short-lived signed URL of the file. Problems otherwise, never the file.
 */
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    params: z.object({
      id: z.string().min(1).max(100),
      artifact: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[a-z0-9]+$/),
    }),
    query: z.object({ t: z.string().max(200).optional() }),
    handler: async ({ params, query }) => {
      const location = await artifactDownloadLocation(params.id, params.artifact, query.t);
      // The link is the holder's own: neither it nor the signed target is cached or passed on.
      return new Response(null, {
        status: 302,
        headers: { Location: location, "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" },
      });
    },
  }),
});
