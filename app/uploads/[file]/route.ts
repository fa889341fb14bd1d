import { z } from "zod";
import { readUpload } from "@/lib/dashboard/uploads";
import { notFound } from "@/lib/http/errors";
import { methods, route } from "@/lib/http/route";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    params: z.object({ file: z.string().max(64) }),
    handler: async ({ params }) => {
      const upload = await readUpload(params.file);
      if (!upload) throw notFound("upload");
      // Content-addressed: the name changes with the bytes, so it can be cached for good.
      return new Response(new Uint8Array(upload.bytes), {
        headers: { "Content-Type": upload.type, "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" },
      });
    },
  }),
});
