import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EmbedBridge } from "@/components/embed/embed-bridge";
import { EmbedChrome } from "@/components/embed/embed-chrome";
import { TestModeBanner } from "@/components/checkout/test-mode-banner";
import { buttonPrimary, card, inputBase } from "@/components/ui/styles";
import { buyErrorCode, buyErrorMessage } from "@/lib/checkout/buy-errors";
import type { CheckoutQuote } from "@/lib/checkout/schemas";
import { trustedEmbedOrigin } from "@/lib/embed/framing";
import { getProduct } from "@/lib/marketplace/get-product";
import { productIdSchema } from "@/lib/marketplace/schemas";
import { testPaymentsEnabled } from "@/lib/payments/provider";
import { formatPrice } from "@/lib/pricing";
import { runOperation } from "@/lib/transports/action";
import { productIconPath } from "@/lib/urls";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Checkout", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

/**
 * The buy button's overlay (public/buy-button.js frames it): the product, its price for the quantity and coupon the
 * seller's button preset, and the buyer's e-mail address. It starts the same checkout as the product page's Buy
 * form (POST /embed/checkout/start → createCheckout), which continues in this frame in test mode; Stripe's hosted
 * checkout refuses to be framed, so there the form opens it in a new tab and says so. The page may be framed only by
 * the seller's verified origins (lib/embed/framing.ts).
 */
export default async function EmbedCheckoutPage({ searchParams }: Props) {
  const query = await searchParams;
  const productId = one(query.product);
  if (!productId || !productIdSchema.safeParse(productId).success) notFound();
  let product;
  try {
    product = await getProduct(productId);
  } catch {
    notFound();
  }
  const quantityText = one(query.quantity) ?? "";
  const quantity = /^\d{1,3}$/.test(quantityText) ? Number(quantityText) : undefined;
  const coupon = (one(query.coupon) ?? "").trim();
  const origin = await trustedEmbedOrigin(one(query.origin), { productId: product.id });
  const error = buyErrorMessage(one(query.error));

  // The price as checkout will charge it (the quote operation, with its limits: a coupon tried here counts).
  const quote = await runOperation<CheckoutQuote>("quoteCheckout", {
    body: { product_id: product.id, ...(quantity ? { quantity } : {}), ...(coupon ? { coupon_code: coupon } : {}) },
  });
  const quoteError = quote.ok ? null : buyErrorMessage(buyErrorCode(quote.problem));
  const stripe = !testPaymentsEnabled();

  return (
    <div className="mx-auto w-full max-w-lg px-4 py-6 sm:px-6">
      <EmbedChrome />
      {origin ? <EmbedBridge origin={origin} /> : null}
      {stripe ? null : <TestModeBanner />}
      <h1 className="mt-4 text-xl font-semibold tracking-tight text-slate-900">Checkout</h1>
      <section aria-label="Your order" className={`${card} mt-4 p-5`}>
        <div className="flex items-start gap-4">
          {/* eslint-disable-next-line @next/next/no-img-element -- an upload or a bundled icon: this site's only */}
          <img src={productIconPath(product.icon_url)} alt="" width={56} height={56} className="size-14 shrink-0 rounded-xl shadow-sm" />
          <div className="min-w-0">
            <p className="text-base leading-snug font-semibold break-words text-slate-900">{product.name}</p>
            <p className="mt-0.5 text-sm text-slate-600">by {product.developer_info.name}</p>
          </div>
        </div>
        {quote.ok ? (
          <dl className="mt-4 space-y-1 border-t border-slate-200 pt-3 text-sm text-slate-700" data-testid="embed-price">
            <div className="flex justify-between gap-4">
              <dt>
                {quote.output.quantity} × {formatPrice(quote.output.unit_price_cents, quote.output.currency)}
              </dt>
              <dd>{formatPrice(quote.output.subtotal_cents, quote.output.currency)}</dd>
            </div>
            {quote.output.discount_cents > 0 ? (
              <div className="flex justify-between gap-4">
                <dt>Coupon {quote.output.coupon_code}</dt>
                <dd>−{formatPrice(quote.output.discount_cents, quote.output.currency)}</dd>
              </div>
            ) : null}
            <div className="flex justify-between gap-4 font-semibold text-slate-900">
              <dt>Total{quote.output.interval ? ` per ${quote.output.interval === "year" ? "year" : "month"}` : ""}</dt>
              <dd>{formatPrice(quote.output.amount_cents, quote.output.currency)}</dd>
            </div>
          </dl>
        ) : (
          <p role="alert" className="mt-4 text-sm text-red-800">
            {quoteError}
          </p>
        )}
      </section>
      <form method="post" action="/embed/checkout/start" target={stripe ? "_blank" : undefined} className={`${card} mt-4 space-y-4 p-5`}>
        {error ? (
          <p role="alert" id="embed-error" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-900">
            {error}
          </p>
        ) : null}
        <input type="hidden" name="product_id" value={product.id} />
        {quantity ? <input type="hidden" name="quantity" value={String(quantity)} /> : null}
        {coupon ? <input type="hidden" name="coupon_code" value={coupon} /> : null}
        {origin ? <input type="hidden" name="origin" value={origin} /> : null}
        <div>
          <label htmlFor="embed-email" className="block text-sm font-medium text-slate-900">
            Your e-mail address
          </label>
          <input id="embed-email" name="buyer_email" type="email" required autoComplete="email" maxLength={254} className={`${inputBase} mt-1`} />
          <p className="mt-1 text-sm text-slate-600">Your license key is sent there.</p>
        </div>
        <button type="submit" className={`${buttonPrimary} w-full py-3`} disabled={!quote.ok}>
          {stripe ? "Continue to payment (opens a new tab)" : "Continue to payment"}
        </button>
        {stripe ? (
          <p className="text-xs text-slate-600">
            Card payments happen on Stripe&apos;s own page, which opens in a new tab: it cannot be shown inside another site.
          </p>
        ) : null}
      </form>
    </div>
  );
}
