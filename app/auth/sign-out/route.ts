import { clearedCookie, readCookie } from "@/lib/auth/cookies";
import { consumeForm } from "@/lib/auth/forms";
import { endSession, SESSION_COOKIE } from "@/lib/auth/sign-in";
import { methods, route } from "@/lib/transports/route";
import { absoluteUrl } from "@/lib/urls";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await consumeForm(request);
      const kind = form.kind === "seller" ? "seller" : "buyer";
      await endSession(readCookie(request.headers.get("cookie"), SESSION_COOKIE[kind]));
      return new Response(null, { status: 303, headers: { Location: absoluteUrl("/"), "Set-Cookie": clearedCookie(SESSION_COOKIE[kind]) } });
    },
  }),
});
