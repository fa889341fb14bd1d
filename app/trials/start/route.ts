import { readForm, seeOther } from "@/lib/checkout/form";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { paths } from "@/lib/urls";

// The product page's trial form: the startTrial operation (through execute(), with its limits) e-mails the trial key
// with the license-gated download link, so the page never shows the seller's installer address to anyone. The
// outcome goes back to the page as a code (?trial=sent | invalid | limited | unavailable) the page words; the answer is
// the same whatever the address already has.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await readForm(request);
      const pid = form.product_id;
      if (pid === undefined || !productIdSchema.safeParse(pid).success) return seeOther("/");
      const back = (code: string) => seeOther(`${paths.product(pid)}?trial=${code}#trial`);
      // The operation checks the address (400 when it is not one that can receive mail).
      const outcome = await runOperationFor(request, "startTrial", { body: { product_id: pid, buyer_email: form.buyer_email ?? "" } });
      if (!outcome.ok) {
        if (outcome.problem.status === 500) throw outcome.problem;
        return back(outcome.problem.status === 429 ? "limited" : outcome.problem.status === 400 ? "invalid" : "unavailable");
      }
      return back("sent");
    },
  }),
});
