import { readForm, seeOther } from "@/lib/checkout/form";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { runOperationFor } from "@/lib/transports/action";
import { methods, route } from "@/lib/transports/route";
import { paths } from "@/lib/urls";

/** The refusals the product page words (components/upgrades/product-upgrade-paths.tsx); anything else is "failed". */
const WORDED = new Set([
  "license_not_found",
  "license_not_upgradable",
  "license_already_upgraded",
  "upgrade_not_offered",
  "amount_below_minimum",
  "rate_limited",
]);

// The product page's "Upgrade from …" form: the buyer's key proves the license; the upgrade's checkout (the
// createUpgradeCheckout operation, through execute(), with its limits) opens and the browser goes to pay, where the
// price for that license is shown before anything is charged. Problems go back to the form as ?upgrade_error=<code>,
// never with the key in the URL.
export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    handler: async ({ request }) => {
      const form = await readForm(request);
      const pid = form.product_id;
      const back = (code: string) =>
        pid !== undefined && productIdSchema.safeParse(pid).success ? seeOther(`${paths.product(pid)}?upgrade_error=${code}#upgrade`) : seeOther("/");
      const key = (form.license_key ?? "").trim();
      if (!/^[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}-[0-9A-Za-z]{4}$/.test(key)) return back("invalid_key");
      // No idempotency key: the product page is drawn once for every visitor (the page cache), so a key in it would
      // be shared; each press opens a checkout, within the per-client limit, and the key's license is upgraded once.
      const outcome = await runOperationFor<{ url: string }>(request, "createUpgradeCheckout", {
        body: { license_key: key, offer_id: form.offer_id ?? "" },
      });
      if (!outcome.ok) {
        if (outcome.problem.status === 500) throw outcome.problem; // a fault of ours: the problem document, logged
        const code = outcome.problem.code;
        return back(WORDED.has(code) ? code : outcome.problem.status === 400 ? "invalid_key" : "failed");
      }
      return seeOther(outcome.output.url);
    },
  }),
});
