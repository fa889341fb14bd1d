import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { CheckoutFrame } from "@/components/checkout/checkout-frame";
import { ClosedNotice } from "@/components/checkout/closed-notice";
import { formatUtc, timeUntil } from "@/components/checkout/format";
import { ClockIcon, LockIcon } from "@/components/checkout/icons";
import { checkoutPaths, findCheckout, isClosed, loadCheckout, type CheckoutView } from "@/components/checkout/load-checkout";
import { ProductSummary } from "@/components/checkout/product-summary";
import { StatusPanel } from "@/components/checkout/status-panel";
import { TestModeBanner } from "@/components/checkout/test-mode-banner";
import { planWords } from "@/components/checkout/plan-words";
import { plural } from "@/components/store/labels";
import { OrderChargesList } from "@/components/store/order-charges";
import { buttonPrimary, card, textLink } from "@/components/ui/styles";
import { testPaymentsEnabled } from "@/lib/payments/provider";
import { EmbedMode, embedOriginOf } from "@/components/embed/embed-mode";
import { embedPath } from "@/lib/urls";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ session_id: string }>; searchParams?: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const view = await findCheckout((await params).session_id);
  return {
    title: view ? `Checkout: ${view.product.name}` : "Checkout not found",
    robots: { index: false },
  };
}

/** The built-in test-mode hosted checkout. Paid sessions go to their key; Stripe sessions go to Stripe. */
export default async function CheckoutPage({ params, searchParams }: Props) {
  const view = await loadCheckout((await params).session_id);
  // Inside the buy button's overlay: the origin that framed it, which the next pages are told too.
  const embed = await embedOriginOf(searchParams, view.product.id);

  if (view.status === "paid") redirect(embedPath(checkoutPaths.success(view.id), embed));
  if (view.provider === "stripe" && view.status === "open" && view.checkoutUrl) redirect(view.checkoutUrl);

  if (isClosed(view.status)) {
    return (
      <CheckoutFrame>
        <ClosedNotice view={view} status={view.status} />
      </CheckoutFrame>
    );
  }

  if (view.provider !== "test") {
    // An open Stripe session whose payment page has not been recorded yet (the provider call is still running).
    return (
      <CheckoutFrame>
        <StatusPanel
          tone="pending"
          title="Your payment page is being prepared"
          actions={
            <Link href={checkoutPaths.checkout(view.id)} className={buttonPrimary}>
              Try again
            </Link>
          }
          footer={<ProductSummary product={view.product} linkName showTagline={false} />}
        >
          <p>The payment provider has not answered yet. Please try again in a moment. You have not been charged.</p>
        </StatusPanel>
      </CheckoutFrame>
    );
  }

  // A test-mode session left open after this deployment stopped offering test mode (Stripe was set up since, or
  // production without PAYMENTS=test): its Pay button would hand out a license for nothing, so it has none.
  if (!testPaymentsEnabled())
    return (
      <CheckoutFrame>
        <ClosedNotice view={view} status="test_mode_off" />
      </CheckoutFrame>
    );

  return <TestCheckout view={view} embed={embed} />;
}

function TestCheckout({ view, embed }: { view: CheckoutView; embed: string | null }) {
  // The license will cover the product's machines for each seat bought.
  const seats = view.product.maxMachines * view.charges.quantity;
  const machines = plural(seats, "machine");
  return (
    <CheckoutFrame wide>
      <EmbedMode origin={embed} />
      <TestModeBanner />

      <h1 className="mt-8 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">Checkout</h1>

      <div className="mt-6 grid gap-6 lg:grid-cols-[minmax(0,1fr)_22rem] lg:items-start">
        <section aria-labelledby="summary-heading" className={`${card} p-6 sm:p-8`}>
          <h2 id="summary-heading" className="text-sm font-semibold tracking-wide text-slate-600 uppercase">
            Order summary
          </h2>
          <div className="mt-5">
            <ProductSummary product={view.product} size="lg" />
          </div>

          <p className="mt-6 border-t border-slate-200 pt-3 text-sm text-slate-600" data-testid="checkout-plan">
            {planWords(view.plan)}
          </p>
          <OrderChargesList charges={view.charges} seats={seats} />

          <div className="mt-4 rounded-xl bg-slate-50 px-4 py-3.5 ring-1 ring-slate-200 ring-inset">
            <h3 className="text-sm font-semibold text-slate-900">What you get</h3>
            <p className="mt-1 text-sm leading-6 text-slate-700">
              A license key for up to {machines}, e-mailed to <span className="font-medium wrap-anywhere text-slate-900">{view.buyerEmail}</span> and
              shown on the next page.
            </p>
          </div>
        </section>

        <section aria-labelledby="pay-heading" className={`${card} p-6 sm:p-8`}>
          <h2 id="pay-heading" className="text-sm font-semibold tracking-wide text-slate-600 uppercase">
            Payment
          </h2>
          <p className="mt-4 text-sm text-slate-600">Billed to</p>
          <p className="mt-0.5 text-base font-medium wrap-anywhere text-slate-900">{view.buyerEmail}</p>

          <form method="post" action={embedPath(checkoutPaths.pay(view.id), embed)} className="mt-6">
            <button type="submit" className={`${buttonPrimary} w-full py-3 text-base`}>
              <LockIcon />
              Pay {view.charges.total}
            </button>
          </form>
          <p className="mt-2 text-center text-xs text-slate-600">Test mode: nothing is charged.</p>

          <form method="post" action={embedPath(checkoutPaths.cancel(view.id), embed)} className="mt-5 text-center">
            <button type="submit" className={`${textLink} text-sm`}>
              Cancel and return
            </button>
          </form>

          <p className="mt-6 flex gap-2 border-t border-slate-200 pt-4 text-xs leading-5 text-slate-600">
            <ClockIcon className="mt-0.5 size-4 shrink-0" />
            <span>
              This checkout expires {timeUntil(view.expiresAt)}, at <time dateTime={view.expiresAt.toISOString()}>{formatUtc(view.expiresAt)}</time>.
            </span>
          </p>
        </section>
      </div>
    </CheckoutFrame>
  );
}
