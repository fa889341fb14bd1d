import { buyErrorCode, type BuyErrorCode } from "@/lib/checkout/buy-errors";
import { buyRefillCookie } from "@/lib/checkout/buy-refill";
import { readForm, seeOther } from "@/lib/checkout/form";
import { createCheckoutRequestSchema } from "@/lib/checkout/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { paths } from "@/lib/urls";

const FIELD_ERRORS: Record<string, BuyErrorCode> = {
  buyer_email: "invalid_email",
  coupon_code: "invalid_coupon",
  quantity: "invalid_quantity",
  interval: "interval_not_offered",
};

// The product page's Buy form: open a checkout session (the createCheckout operation, through execute(), with its
// limits) and send the browser to pay; problems go back to the form
// as a code (?buy_error=<code>), which the page turns into its own words (lib/checkout/buy-errors.ts), with what the
// buyer typed so nothing has to be entered again: coupon and seats in the URL, the e-mail address in a short-lived
// cookie for that page only (lib/checkout/buy-refill.ts), never in the URL.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await readForm(request);
      const coupon = form.coupon_code?.trim() ?? "";
      const quantity = form.quantity?.trim() ?? "";
      const interval = form.interval?.trim() ?? "";
      const back = (code: BuyErrorCode) => {
        const pid = form.product_id;
        const id = pid !== undefined && productIdSchema.safeParse(pid).success ? pid : null;
        const refill = new URLSearchParams({ buy_error: code });
        if (coupon) refill.set("coupon", coupon);
        if (quantity) refill.set("quantity", quantity);
        if (!id) return seeOther("/");
        const response = seeOther(`${paths.product(id)}?${refill.toString()}#buy`);
        if (form.buyer_email) response.headers.append("Set-Cookie", buyRefillCookie(id, form.buyer_email));
        return response;
      };
      const parsed = createCheckoutRequestSchema.safeParse({
        product_id: form.product_id,
        buyer_email: form.buyer_email,
        ...(coupon ? { coupon_code: coupon } : {}),
        // A form sends text; only a plain whole number is a quantity ("" or absent: one).
        ...(quantity ? { quantity: /^\d{1,3}$/.test(quantity) ? Number(quantity) : Number.NaN } : {}),
        ...(interval ? { interval } : {}),
      });
      if (!parsed.success) return back(FIELD_ERRORS[String(parsed.error.issues[0]?.path[0])] ?? "not_buyable");
      // No idempotency key: the product page is drawn once for every visitor (the page cache), so a key in it would
      // be shared; each press opens a session, as before, within the per-client limit.
      const outcome = await runOperationFor<{ url: string }>(request, "createCheckout", { body: parsed.data });
      if (!outcome.ok) {
        if (outcome.problem.status === 500) throw outcome.problem; // a fault of ours: the problem document, logged
        return back(buyErrorCode(outcome.problem));
      }
      return seeOther(outcome.output.url);
    },
  }),
});
