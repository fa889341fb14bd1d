import { z } from "zod";
import { buyErrorCode } from "@/lib/checkout/buy-errors";
import { readForm, seeOther } from "@/lib/checkout/form";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { paths } from "@/lib/urls";

/** The link's own refusals, which its page words itself (components/links/link-messages.ts). */
const LINK_CODES = new Set(["checkout_link_not_found", "checkout_link_expired", "checkout_link_used_up"]);

// A checkout link's Buy form: open the link's checkout (the startCheckoutLink operation, through execute(), with the
// checkout's limits) and send the browser to pay; a refusal goes back to the link's page as a code (?buy_error=<code>),
// which the page turns into its own words. No idempotency key: the page is drawn for every visitor, and each press
// opens one checkout within the per-client limit, as the product page's Buy button does.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    params: z.object({ id: z.string().min(1).max(64), slug: z.string().min(1).max(64) }),
    handler: async ({ request, params }) => {
      const form = await readForm(request);
      const back = (code: string) => seeOther(`${paths.checkoutLink(params.id, params.slug)}?buy_error=${code}#buy`);
      const outcome = await runOperationFor<{ url: string }>(request, "startCheckoutLink", {
        params: { developer_id: params.id, slug: params.slug },
        body: { buyer_email: form.buyer_email ?? "" },
      });
      if (!outcome.ok) {
        const p = outcome.problem;
        if (p.status === 500) throw p; // a fault of ours: the problem document, logged
        if (LINK_CODES.has(p.code)) return back(p.code);
        if (p.status === 400 && p.extra.errors?.some((e) => e.name === "buyer_email")) return back("invalid_email");
        if (p.status === 400 && p.extra.errors?.some((e) => e.in === "path")) return back("checkout_link_not_found");
        return back(buyErrorCode(p));
      }
      return seeOther(outcome.output.url);
    },
  }),
});
