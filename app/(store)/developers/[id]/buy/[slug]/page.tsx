import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import type { PublicCheckoutLink } from "@/lib/links/schemas";
import { checkoutConfigured } from "@/lib/payments/provider";
import { formatPrice } from "@/lib/pricing";
import { runOperation } from "@/lib/transports/action";
import { paths, productIconPath } from "@/lib/urls";
import { linkBuyError } from "@/components/links/link-messages";
import { LinkRefused } from "@/components/links/link-refused";
import { plural } from "@/components/store/labels";
import { buttonPrimary, card, container, inputBase, textLink } from "@/components/ui/styles";

export const dynamic = "force-dynamic";
// A link is the seller's to share, not a page for search engines.
export const metadata: Metadata = { title: "Checkout", robots: { index: false, follow: false } };

type Props = {
  params: Promise<{ id: string; slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

/**
 * A checkout link's page: the product, the seats and discount the link presets, and the price to the cent, as the
 * checkout's own quote computes it; an e-mail field and a Buy button that opens the same checkout as the product
 * page. Reading it goes through the viewCheckoutLink operation, which counts the visit.
 */
export default async function CheckoutLinkPage({ params, searchParams }: Props) {
  const { id, slug } = await params;
  const query = await searchParams;
  const outcome = await runOperation<PublicCheckoutLink>("viewCheckoutLink", { params: { developer_id: id, slug } });
  if (!outcome.ok) {
    if (outcome.problem.status >= 500) throw outcome.problem;
    // An unknown or turned-off link, or a malformed address (not a slug), is a real 404 (not-found.tsx says why);
    // a link that exists but cannot sell now (expired, used up, its product or coupon gone) says so on the page.
    if (outcome.problem.status === 400 || outcome.problem.code === "checkout_link_not_found") notFound();
    return <LinkRefused code={outcome.problem.code} />;
  }
  const link = outcome.output;
  const q = link.quote;
  const price = (cents: number) => formatPrice(cents, q.currency);
  const per = q.interval ? ` per ${q.interval}` : "";
  const error = linkBuyError(first(query.buy_error));
  const canBuy = checkoutConfigured();

  return (
    <div className={`${container} py-10 sm:py-16`}>
      <div className={`${card} mx-auto max-w-lg p-6 sm:p-8`}>
        <div className="flex items-start gap-4">
          {/* eslint-disable-next-line @next/next/no-img-element -- a small icon this site serves */}
          <img src={productIconPath(link.product.icon_url)} alt="" width={56} height={56} className="size-14 shrink-0 rounded-xl" />
          <div className="min-w-0">
            <h1 className="text-xl font-semibold wrap-anywhere text-slate-900">{link.product.name}</h1>
            <p className="mt-1 text-sm text-slate-600">
              by{" "}
              <Link href={paths.developer(link.developer_id)} className={textLink}>
                {link.developer_name}
              </Link>
            </p>
            {link.product.tagline ? <p className="mt-2 text-sm leading-6 text-slate-700">{link.product.tagline}</p> : null}
          </div>
        </div>

        <div className="mt-6 space-y-2 border-t border-slate-200 pt-4 text-sm" id="checkout-link-price">
          <dl className="space-y-2">
            <div className="flex justify-between gap-4">
              <dt className="text-slate-600">
                {plural(q.quantity, "seat")} × {price(q.unit_price_cents)}
                {per}
              </dt>
              <dd className="text-slate-900 tabular-nums">{price(q.subtotal_cents)}</dd>
            </div>
            {q.coupon_code && q.discount_cents > 0 ? (
              <div className="flex justify-between gap-4">
                <dt className="text-slate-600">
                  Discount <code className="font-mono">{q.coupon_code}</code>
                </dt>
                <dd className="text-emerald-700 tabular-nums">−{price(q.discount_cents)}</dd>
              </div>
            ) : null}
            <div className="flex justify-between gap-4 border-t border-slate-200 pt-2 text-base font-semibold">
              <dt className="text-slate-900">{q.trial_days > 0 ? `After ${plural(q.trial_days, "free day")}` : "Total"}</dt>
              <dd className="text-slate-900 tabular-nums" data-testid="checkout-link-amount">
                {price(q.amount_cents)}
                {per}
              </dd>
            </div>
          </dl>
          <p className="text-xs text-slate-600">
            {q.tax === "calculated_at_checkout" ? "Tax, where it applies, is added at checkout. " : ""}
            The license allows up to {plural(q.max_machines, "machine")}.
            {link.expires_at ? ` This offer ends ${new Date(link.expires_at).toUTCString()}.` : ""}
          </p>
        </div>

        {canBuy ? (
          <form method="post" action={`${paths.checkoutLink(link.developer_id, link.slug)}/start`} className="mt-6 space-y-4" id="buy">
            {error ? (
              <div
                id="buy_error"
                role="alert"
                className="rounded-lg border border-red-200 bg-red-50 px-3.5 py-3 text-sm leading-6 break-words text-red-800"
              >
                {error}
              </div>
            ) : null}
            <div>
              <label htmlFor="buyer_email" className="block text-sm font-medium text-slate-800">
                E-mail address
              </label>
              <input
                id="buyer_email"
                type="email"
                name="buyer_email"
                required
                autoComplete="email"
                inputMode="email"
                placeholder="you@example.com"
                aria-describedby={error ? "buy_error buyer_email_hint" : "buyer_email_hint"}
                className={`${inputBase} mt-1.5`}
              />
              <p id="buyer_email_hint" className="mt-1.5 text-xs text-slate-600">
                Your license key is sent to this address.
              </p>
            </div>
            <button type="submit" className={`${buttonPrimary} w-full py-3 text-base`}>
              Buy
            </button>
          </form>
        ) : (
          <div role="status" className="mt-6 rounded-lg border border-amber-200 bg-amber-50 px-3.5 py-3 text-sm leading-6 text-amber-900">
            Checkout is not configured on this deployment, so licenses cannot be bought here yet.
          </div>
        )}
      </div>
    </div>
  );
}
