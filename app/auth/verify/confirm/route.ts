import { sameOriginFetch, sessionCookie } from "@/lib/auth/cookies";
import { consumeSignIn } from "@/lib/auth/sign-in";
import { readForm } from "@/lib/checkout/form";
import { AppError } from "@/lib/http/errors";
import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/transports/route";
import { absoluteUrl } from "@/lib/urls";

const NO_STORE = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

// The confirm page's button: only a same-origin form post uses a sign-in link up, so neither a prefetching scanner nor
// another site (login CSRF: signing a visitor in to the attacker's account) can.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    rateLimit: ({ client }) => [[RULES.checkout, client]],
    handler: async ({ request }) => {
      // Fetch Metadata first: it holds even where a referrer policy turns our own Origin into "null" (lib/auth/cookies.ts).
      if (!sameOriginFetch(request)) throw new AppError("cross_site_form", 403, "This form can only be sent from this site.");
      const form = await readForm(request);
      try {
        const s = await consumeSignIn(form.token ?? "");
        return new Response(null, {
          status: 303,
          headers: { Location: absoluteUrl(s.next), "Set-Cookie": sessionCookie(s.cookieName, s.cookieValue, s.maxAgeSeconds), ...NO_STORE },
        });
      } catch (error) {
        if (error instanceof AppError && error.code === "sign_in_link_invalid") {
          return new Response(null, { status: 303, headers: { Location: absoluteUrl("/auth/check-email?invalid=1"), ...NO_STORE } });
        }
        throw error;
      }
    },
  }),
});
