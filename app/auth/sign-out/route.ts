import { clearedCookie, readCookie } from "@/lib/auth/cookies";
import { consumeForm } from "@/lib/auth/forms";
import { SESSION_COOKIE } from "@/lib/auth/sign-in";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { absoluteUrl } from "@/lib/urls";

// The Sign out buttons: the session ends (the endSession operation, through execute()) and its cookie is cleared.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await consumeForm(request);
      const kind = form.kind === "seller" ? "seller" : "buyer";
      const session = readCookie(request.headers.get("cookie"), SESSION_COOKIE[kind]);
      const outcome = await runOperationFor(request, "endSession", { body: session !== undefined && session.length <= 100 ? { session } : {} });
      if (!outcome.ok) throw outcome.problem;
      return new Response(null, { status: 303, headers: { Location: absoluteUrl("/"), "Set-Cookie": clearedCookie(SESSION_COOKIE[kind]) } });
    },
  }),
});
