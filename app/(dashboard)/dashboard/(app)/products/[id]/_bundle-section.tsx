import { bundleCandidates, getBundle } from "@/lib/bundles/manage-bundle";
import { formatPrice } from "@/lib/pricing";
import { plural } from "@/components/store/labels";
import { buttonSecondary, card } from "@/components/ui/styles";
import { setBundleItemsAction } from "./bundle-actions";
import { BUNDLE_NOTICES } from "@/components/dashboard/bundle-notices";

/**
 * The product page's Bundle section: which of the seller's other products this one includes (ticked, in the order
 * listed: the bundle's items first, then the rest by name) and whether buyers who hold some of them pay less. Sold
 * once only, so a subscription or an updates plan shows why instead of the form.
 */
export async function BundleSection(props: {
  developerId: string;
  product: { id: string; currency: string; pricingModel: string; priceCents: number };
  notice: { code: string | undefined; item: string | undefined };
}) {
  const { product } = props;
  const [bundle, candidates] = await Promise.all([
    getBundle(props.developerId, product.id),
    bundleCandidates(props.developerId, product.id, product.currency),
  ]);
  const included = new Set(bundle.items.map((i) => i.product_id));
  // The bundle's items keep their order (also one no longer listed, so saving again does not drop it silently).
  const rows = [
    ...bundle.items.map((i) => ({ id: i.product_id, name: i.name, priceCents: i.price_cents, maxMachines: i.max_machines, status: i.status })),
    ...candidates.filter((c) => !included.has(c.id)).map((c) => ({ ...c, status: "active" })),
  ];
  const names = new Map(rows.map((r) => [r.id, r.name]));
  const notice = props.notice.code ? BUNDLE_NOTICES[props.notice.code] : undefined;
  const itemName = props.notice.item ? (names.get(props.notice.item) ?? "That product") : "That product";
  const listTotal = bundle.items.reduce((sum, i) => sum + i.price_cents, 0);
  return (
    <section id="bundle" aria-labelledby="bundle-heading" className={`${card} mt-8 scroll-mt-6 p-6`}>
      <h2 id="bundle-heading" className="text-base font-semibold text-slate-900">
        Bundle
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Sell this product as a bundle of 2 to 20 of your other products, at this product&apos;s own price. Buyers get one license per included
        product, each with that product&apos;s own machines; a full refund ends them all.
      </p>
      {notice ? (
        <p role={props.notice.code === "saved" ? "status" : "alert"} className="mt-3 rounded-lg bg-slate-50 px-3.5 py-2.5 text-sm text-slate-800">
          {notice.replace("{item}", itemName)}
        </p>
      ) : null}
      {product.pricingModel !== "one_time" ? (
        <p className="mt-3 text-sm text-slate-700">Only a product sold once can be a bundle; this one is sold by subscription or updates plan.</p>
      ) : rows.length < 2 ? (
        <p className="mt-3 text-sm text-slate-700">
          List at least two other products sold once in {product.currency.toUpperCase()} to make a bundle of them.
        </p>
      ) : (
        <form action={setBundleItemsAction.bind(null, product.id)} className="mt-4 space-y-4">
          <fieldset>
            <legend className="text-sm font-medium text-slate-800">Included products</legend>
            <ul className="mt-2 space-y-1.5">
              {rows.map((r) => (
                <li key={r.id}>
                  <label className="flex items-center gap-2 text-sm text-slate-800">
                    <input type="checkbox" name="product_ids" value={r.id} defaultChecked={included.has(r.id)} className="size-4" />
                    <span>
                      {r.name}{" "}
                      <span className="text-slate-600">
                        ({formatPrice(r.priceCents, product.currency)}, {plural(r.maxMachines, "machine")}
                        {r.status === "active" ? "" : `, ${r.status}`})
                      </span>
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
          <label className="flex items-start gap-2 text-sm text-slate-800">
            <input type="checkbox" name="prorate" defaultChecked={bundle.prorate} className="mt-0.5 size-4" />
            <span>
              Prorate: a buyer who already holds some of these products pays the bundle price less their share (by list price) and gets licenses only
              for the others.
            </span>
          </label>
          {bundle.is_bundle ? (
            <p className="text-xs text-slate-600">
              {plural(bundle.items.length, "product")} worth {formatPrice(listTotal, product.currency)} apart, sold together for{" "}
              {formatPrice(product.priceCents, product.currency)}.
            </p>
          ) : null}
          <button type="submit" className={buttonSecondary}>
            Save bundle
          </button>
        </form>
      )}
    </section>
  );
}
