import { buyErrorCode, type BuyErrorCode } from "@/lib/checkout/buy-errors";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { readForm, seeOther } from "@/lib/checkout/form";
import { createCheckoutRequestSchema } from "@/lib/checkout/schemas";
import { AppError } from "@/lib/http/errors";
import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";
import { productIdSchema } from "@/lib/marketplace/schemas";

// The product page's Buy form: open a checkout session and send the browser to pay; problems go back to the form
// as a code (?buy_error=<code>), which the page turns into its own words (lib/checkout/buy-errors.ts).
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    rateLimit: ({ client }) => [[RULES.checkout, client]],
    handler: async ({ request }) => {
      const form = await readForm(request);
      const back = (code: BuyErrorCode) => {
        const pid = form.product_id;
        const id = pid !== undefined && productIdSchema.safeParse(pid).success ? pid : null;
        const target = id ? `/products/${id}?buy_error=${code}&email=${encodeURIComponent(form.buyer_email ?? "")}#buy` : "/";
        return seeOther(target);
      };
      const parsed = createCheckoutRequestSchema.safeParse({ product_id: form.product_id, buyer_email: form.buyer_email });
      if (!parsed.success) return back(parsed.error.issues[0]?.path[0] === "buyer_email" ? "invalid_email" : "not_buyable");
      try {
        const session = await createCheckout(parsed.data);
        return seeOther(session.url);
      } catch (error) {
        if (error instanceof AppError) return back(buyErrorCode(error));
        throw error;
      }
    },
  }),
});
