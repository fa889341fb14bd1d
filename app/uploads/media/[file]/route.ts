import { z } from "zod";
import { serveMedia } from "@/lib/media/serve";
import { methods, route } from "@/lib/transports/route";

/**
 * A listed product's cover, screenshots and demos (lib/media/serve.ts): GET and HEAD, single byte ranges; a product
 * that is not listed shows them only to its own seller signed in (their session cookie).
 */
const handler = route({
  params: z.object({ file: z.string().max(64) }),
  handler: ({ params, request }) =>
    serveMedia({
      name: params.file,
      method: request.method,
      range: request.headers.get("range"),
      ifRange: request.headers.get("if-range"),
      cookie: request.headers.get("cookie"),
    }),
});

export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: handler });
export const HEAD = handler;
