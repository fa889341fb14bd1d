import { consumeForm } from "@/lib/auth/forms";
import { bindingCookie } from "@/lib/auth/link-binding";
import { seeOther } from "@/lib/checkout/form";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";

// The sign-in forms of the dashboard and "My licenses": e-mail a link (the requestSignIn operation, through execute()),
// remember this browser asked for it, then say so. A refusal goes back to the form as a code (?error=invalid-email |
// rate-limited), never as text the page would echo.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await consumeForm(request);
      const purpose = form.purpose === "seller" ? "seller" : "buyer";
      const page = purpose === "seller" ? "/dashboard/sign-in" : "/licenses";
      const body = { email: form.email, purpose, next: form.next || undefined };
      const outcome = await runOperationFor<{ email: string; digest: string }>(request, "requestSignIn", { body });
      if (!outcome.ok) {
        if (outcome.problem.status === 429) return seeOther(`${page}?error=rate-limited`);
        if (outcome.problem.status === 400) return seeOther(`${page}?error=invalid-email`);
        throw outcome.problem;
      }
      const answer = seeOther(`/auth/check-email?purpose=${purpose}`);
      answer.headers.append("Set-Cookie", bindingCookie(request.headers.get("cookie"), outcome.output.email, outcome.output.digest));
      return answer;
    },
  }),
});
