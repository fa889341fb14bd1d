import { CACHE } from "@/lib/http/headers";
import { methods, route } from "@/lib/transports/route";
import { assertDevMailbox, listDevMailbox } from "@/lib/email/dev-mailbox";
import { mailboxQuerySchema } from "@/lib/email/schemas";

// The development mailbox as JSON, for tests and agents: loopback clients only, and only without RESEND_API_KEY.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    query: mailboxQuerySchema,
    cache: CACHE.none,
    handler: ({ query, request }) => {
      assertDevMailbox(request.headers);
      return listDevMailbox(query);
    },
  }),
});
