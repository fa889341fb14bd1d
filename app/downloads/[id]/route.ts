import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/http/route";
import { getDownload } from "@/lib/marketplace/get-download";
import { productParamsSchema } from "@/lib/marketplace/schemas";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    params: productParamsSchema,
    handler: async ({ params }) => {
      const download = await getDownload(params.id);
      if (download.kind === "redirect") return Response.redirect(download.url, 302);
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
