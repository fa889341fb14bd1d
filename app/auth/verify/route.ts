import { sessionCookie } from "@/lib/auth/cookies";
import { consumeSignIn } from "@/lib/auth/sign-in";
import { AppError } from "@/lib/http/errors";
import { methods, route } from "@/lib/http/route";
import { absoluteUrl } from "@/lib/urls";

// The link in the sign-in e-mail: exchange the token for a session cookie, then go where the person was headed.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  GET: route({
    handler: async ({ url }) => {
      const token = url.searchParams.get("token") ?? "";
      try {
        const s = await consumeSignIn(token);
        return new Response(null, {
          status: 303,
          headers: {
            Location: absoluteUrl(s.next),
            "Set-Cookie": sessionCookie(s.cookieName, s.cookieValue, s.maxAgeSeconds),
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
          },
        });
      } catch (error) {
        if (error instanceof AppError && error.code === "sign_in_link_invalid") {
          return new Response(null, { status: 303, headers: { Location: absoluteUrl("/auth/check-email?invalid=1"), "Cache-Control": "no-store" } });
        }
        throw error;
      }
    },
  }),
});
