import { buyButtonScript, buyButtonVersion } from "@/lib/embed/buy-button-script";
import { env } from "@/lib/env";
import { methods, route } from "@/lib/transports/route";

// The buy button's script (lib/embed/buy-button-script.ts). Asked for with this version's hash (`?v=<hash>`, what the
// dashboard's snippet writes) it may be cached for a year; under any other address for an hour, so a page that names
// the bare path gets a new version within the hour.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    handler: ({ url }) => {
      const origin = new URL(env().BASE_URL).origin;
      const version = buyButtonVersion(origin);
      const pinned = url.searchParams.get("v") === version;
      return new Response(buyButtonScript(origin), {
        headers: {
          "Content-Type": "text/javascript; charset=utf-8",
          "Cache-Control": pinned ? "public, max-age=31536000, immutable" : "public, max-age=3600",
          ETag: `"${version}"`,
        },
      });
    },
  }),
});
