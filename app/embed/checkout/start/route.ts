import { buyErrorCode, type BuyErrorCode } from "@/lib/checkout/buy-errors";
import { readForm, seeOther } from "@/lib/checkout/form";
import { createCheckoutRequestSchema } from "@/lib/checkout/schemas";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { EMBED_ENTRY_PATH, embedParamOf, embedPath, isOwnUrl } from "@/lib/urls";

const FIELD_ERRORS: Record<string, BuyErrorCode> = {
  buyer_email: "invalid_email",
  coupon_code: "invalid_coupon",
  quantity: "invalid_quantity",
};

// The buy button overlay's form (app/embed/checkout/page.tsx): the same checkout as the product page's Buy form
// (createCheckout, through execute(), with its limits). A test-mode checkout continues in the frame, carrying the
// framing page's origin (`?embed=`) so its pay, success and cancelled pages answer in embed mode; Stripe's page is
// opened in a new tab by the form itself. A refusal goes back to the overlay as a code (?error=<code>) worded there.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await readForm(request);
      const coupon = form.coupon_code?.trim() ?? "";
      const quantity = form.quantity?.trim() ?? "";
      const origin = embedParamOf(form.origin);
      const back = (code: BuyErrorCode) => {
        const pid = form.product_id;
        if (pid === undefined || !productIdSchema.safeParse(pid).success) return seeOther("/");
        const again = new URLSearchParams({ product: pid, error: code });
        if (quantity) again.set("quantity", quantity);
        if (coupon) again.set("coupon", coupon);
        if (origin) again.set("origin", origin);
        return seeOther(`${EMBED_ENTRY_PATH}?${again.toString()}`);
      };
      const parsed = createCheckoutRequestSchema.safeParse({
        product_id: form.product_id,
        buyer_email: form.buyer_email,
        ...(coupon ? { coupon_code: coupon } : {}),
        ...(quantity ? { quantity: /^\d{1,3}$/.test(quantity) ? Number(quantity) : Number.NaN } : {}),
      });
      if (!parsed.success) return back(FIELD_ERRORS[String(parsed.error.issues[0]?.path[0])] ?? "not_buyable");
      // No idempotency key, as on the product page: each press opens a session, within the per-client limit.
      const outcome = await runOperationFor<{ url: string }>(request, "createCheckout", { body: parsed.data });
      if (!outcome.ok) {
        if (outcome.problem.status === 500) throw outcome.problem;
        return back(buyErrorCode(outcome.problem));
      }
      // Our own test-mode checkout stays in the frame; any other (Stripe's) page is where the new tab goes.
      return seeOther(isOwnUrl(outcome.output.url) ? embedPath(outcome.output.url, origin) : outcome.output.url);
    },
  }),
});
