import { consumeForm } from "@/lib/auth/forms";
import { requestSignIn, signInRequestSchema } from "@/lib/auth/sign-in";
import { seeOther } from "@/lib/checkout/form";
import { AppError } from "@/lib/http/errors";
import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";

// The sign-in forms of the dashboard and "My licenses": e-mail a link, then say so.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    rateLimit: ({ client }) => [[RULES.checkout, client]],
    handler: async ({ request }) => {
      const form = await consumeForm(request);
      const purpose = form.purpose === "seller" ? "seller" : "buyer";
      const page = purpose === "seller" ? "/dashboard/sign-in" : "/licenses";
      const parsed = signInRequestSchema.safeParse({ email: form.email, purpose, next: form.next || undefined });
      if (!parsed.success) return seeOther(`${page}?error=${encodeURIComponent("Please enter a valid e-mail address.")}`);
      try {
        await requestSignIn(parsed.data);
      } catch (error) {
        if (error instanceof AppError && error.status === 429)
          return seeOther(`${page}?error=${encodeURIComponent("Too many sign-in links for this address; wait a few minutes.")}`);
        throw error;
      }
      return seeOther(`/auth/check-email?purpose=${purpose}&email=${encodeURIComponent(parsed.data.email)}`);
    },
  }),
});
