import { consumeForm } from "@/lib/auth/forms";
import { bindingCookie } from "@/lib/auth/link-binding";
import { requestSignIn, signInRequestSchema } from "@/lib/auth/sign-in";
import { seeOther } from "@/lib/checkout/form";
import { AppError } from "@/lib/http/errors";
import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/transports/route";

// The sign-in forms of the dashboard and "My licenses": e-mail a link, remember this browser asked for it, then say so.
// A refusal goes back to the form as a code (?error=invalid-email | rate-limited), never as text the page would echo.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    rateLimit: ({ client }) => [[RULES.checkout, client]],
    handler: async ({ request }) => {
      const form = await consumeForm(request);
      const purpose = form.purpose === "seller" ? "seller" : "buyer";
      const page = purpose === "seller" ? "/dashboard/sign-in" : "/licenses";
      const parsed = signInRequestSchema.safeParse({ email: form.email, purpose, next: form.next || undefined });
      if (!parsed.success) return seeOther(`${page}?error=invalid-email`);
      let digest: string;
      try {
        ({ digest } = await requestSignIn(parsed.data));
      } catch (error) {
        if (error instanceof AppError && error.status === 429) return seeOther(`${page}?error=rate-limited`);
        throw error;
      }
      const answer = seeOther(`/auth/check-email?purpose=${purpose}`);
      answer.headers.append("Set-Cookie", bindingCookie(request.headers.get("cookie"), parsed.data.email, digest));
      return answer;
    },
  }),
});
