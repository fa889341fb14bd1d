import { methods, route } from "@/lib/http/route";
import { baseHeaders } from "@/lib/http/respond";
import { VC_MEDIA_TYPE } from "@/lib/verifiable/license-credential";
import { statusListCredential } from "@/lib/verifiable/status-list";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  // Short cache: revocations show up within a minute for everyone checking the list.
  GET: route({ handler: async ({ requestId }) => new Response(await statusListCredential(), { headers: { ...baseHeaders(requestId, "public, max-age=60"), "Content-Type": VC_MEDIA_TYPE } }) }),
});
