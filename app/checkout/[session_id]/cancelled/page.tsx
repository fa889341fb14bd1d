import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { CheckoutFrame } from "@/components/checkout/checkout-frame";
import { checkoutPaths, findCheckout, loadCheckout } from "@/components/checkout/load-checkout";
import { ProductSummary } from "@/components/checkout/product-summary";
import { StatusPanel } from "@/components/checkout/status-panel";
import { buttonPrimary, buttonSecondary } from "@/components/ui/styles";
import { EmbedMode, embedOriginOf } from "@/components/embed/embed-mode";
import { embedPath } from "@/lib/urls";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ session_id: string }>; searchParams?: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const view = await findCheckout((await params).session_id);
  return { title: view ? "Checkout cancelled" : "Checkout not found", robots: { index: false } };
}

/** Where the test-mode cancel button and Stripe's "back" link land. */
export default async function CheckoutCancelledPage({ params, searchParams }: Props) {
  const view = await loadCheckout((await params).session_id);
  const embed = await embedOriginOf(searchParams, view.product.id);

  // Cancelling does not undo a payment: a paid order's page is its key, not "you have not been charged".
  if (view.status === "paid") redirect(embedPath(checkoutPaths.success(view.id), embed));

  // Stripe keeps a session open after its back link, so the buyer can still pay it (a test session reached here by
  // hand is open too: its own page takes it).
  const resumeUrl = view.status !== "open" ? null : view.provider === "stripe" ? view.checkoutUrl : checkoutPaths.checkout(view.id);

  return (
    <CheckoutFrame>
      <EmbedMode origin={embed} message={{ type: "ilm:checkout.cancelled" }} />
      <StatusPanel
        tone="stopped"
        title="Checkout cancelled"
        actions={
          <>
            {resumeUrl ? (
              <a href={resumeUrl} className={buttonPrimary}>
                Resume payment
              </a>
            ) : null}
            <Link href={checkoutPaths.buyAgain(view.product.id)} className={resumeUrl ? buttonSecondary : buttonPrimary}>
              <span aria-hidden="true">←</span> Back to {view.product.name}
            </Link>
          </>
        }
        footer={<ProductSummary product={view.product} linkName showTagline={false} />}
      >
        <p>
          You have not been charged. The order was for {view.charges.quantity} × {view.charges.unit}
          {view.charges.discount ? ` less ${view.charges.discount}${view.charges.couponCode ? ` (${view.charges.couponCode})` : ""}` : ""}:{" "}
          {view.charges.total}
          {view.charges.taxCalculated ? " including tax" : ""}.
        </p>
        {resumeUrl ? <p>Changed your mind? Your payment page is still open for now.</p> : null}
      </StatusPanel>
    </CheckoutFrame>
  );
}
