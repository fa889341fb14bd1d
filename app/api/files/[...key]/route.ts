import { z } from "zod";
import { methods, route } from "@/lib/transports/route";
import { serveSignedFile } from "@/lib/storage/serve";

/**
 * The local storage driver's signed download links (see lib/storage/serve.ts): GET and HEAD, single byte ranges
 * (electron-updater resumes and verifies with them). With the S3 driver links point at the bucket: 404 here.
 */
const handler = route({
  params: z.object({ key: z.array(z.string().max(1024)).min(1).max(32) }),
  handler: ({ params, url, request }) =>
    serveSignedFile({
      key: params.key.join("/"),
      url,
      method: request.method,
      range: request.headers.get("range"),
      ifRange: request.headers.get("if-range"),
    }),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: handler });
export const HEAD = handler;
