import { z } from "zod";
import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/transports/route";
import { getDownload } from "@/lib/marketplace/get-download";
import { productParamsSchema } from "@/lib/marketplace/schemas";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    params: productParamsSchema,
    query: z.object({ t: z.string().max(200).optional() }),
    handler: async ({ params, query }) => {
      const download = await getDownload(params.id, query.t);
      if (download.kind === "redirect") {
        // Only for a license holder's link; the link is the holder's own, so neither it nor the target is cached or passed on.
        return new Response(null, {
          status: 302,
          headers: { Location: download.url, "Cache-Control": "private, no-store", "Referrer-Policy": "no-referrer" },
        });
      }
      return new Response(download.body, {
        headers: {
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Disposition": `attachment; filename="${download.filename}"`,
          "Cache-Control": CACHE.document,
        },
      });
    },
  }),
});
