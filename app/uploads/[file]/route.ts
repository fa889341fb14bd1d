import { Readable } from "node:stream";
import { z } from "zod";
import { openUpload } from "@/lib/selling/uploads";
import { notFound } from "@/lib/http/errors";
import { methods, route } from "@/lib/transports/route";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    params: z.object({ file: z.string().max(64) }),
    handler: async ({ params }) => {
      // From the object store (local disk or the shared bucket), whichever instance stored it.
      const upload = await openUpload(params.file);
      if (!upload) throw notFound("upload");
      // Content-addressed: the name changes with the bytes, so it can be cached for good.
      return new Response(Readable.toWeb(upload.body) as ReadableStream<Uint8Array>, {
        headers: {
          "Content-Type": upload.type,
          "Content-Length": String(upload.size),
          "Cache-Control": "public, max-age=31536000, immutable",
          "X-Content-Type-Options": "nosniff",
        },
      });
    },
  }),
});
