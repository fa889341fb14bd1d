import { sameOriginFetch, sessionCookie } from "@/lib/auth/cookies";
import { readForm } from "@/lib/checkout/form";
import { AppError } from "@/lib/http/errors";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { absoluteUrl } from "@/lib/urls";

const NO_STORE = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

interface Session {
  cookie_name: string;
  cookie_value: string;
  max_age_seconds: number;
  next: string;
}

// The confirm page's button: only a same-origin form post uses a sign-in link up (the confirmSignIn operation, through
// execute()), so neither a prefetching scanner nor another site (login CSRF: signing a visitor in to the attacker's
// account) can.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      // Fetch Metadata first: it holds even where a referrer policy turns our own Origin into "null" (lib/auth/cookies.ts).
      if (!sameOriginFetch(request)) throw new AppError("cross_site_form", 403, "This form can only be sent from this site.");
      const form = await readForm(request);
      const outcome = await runOperationFor<Session>(request, "confirmSignIn", { body: { token: form.token ?? "" } });
      if (!outcome.ok) {
        if (outcome.problem.status === 400)
          // An expired, used or unknown link, or a token that is not one.
          return new Response(null, { status: 303, headers: { Location: absoluteUrl("/auth/check-email?invalid=1"), ...NO_STORE } });
        throw outcome.problem;
      }
      const s = outcome.output;
      return new Response(null, {
        status: 303,
        headers: { Location: absoluteUrl(s.next), "Set-Cookie": sessionCookie(s.cookie_name, s.cookie_value, s.max_age_seconds), ...NO_STORE },
      });
    },
  }),
});
