import Link from "next/link";
import { buttonPrimary, buttonSecondary } from "@/components/ui/styles";
import { checkoutPaths, type CheckoutView, type ClosedStatus } from "./load-checkout";
import { ProductSummary } from "./product-summary";
import { StatusPanel } from "./status-panel";

/** Why a session cannot be paid: it closed, or (test_mode_off) it is a test-mode session this store no longer takes. */
type Reason = ClosedStatus | "test_mode_off";

const COPY: Record<Reason, { title: string; body: string }> = {
  expired: {
    title: "This checkout has expired",
    body: "Checkout sessions only stay open for a limited time, and this one ran out before it was paid. You have not been charged.",
  },
  cancelled: {
    title: "This checkout was cancelled",
    body: "The checkout was cancelled before payment. You have not been charged.",
  },
  failed: {
    title: "This checkout could not be completed",
    body: "The payment could not be opened or did not go through. You have not been charged.",
  },
  // A test-mode session left open after the store stopped offering test mode: its Pay button would hand out a license for nothing.
  test_mode_off: {
    title: "This test checkout can no longer be paid",
    body: "It was opened in test mode, which this store no longer uses. Nothing was charged and no license was issued.",
  },
};

/** What a session that cannot be paid shows: what happened, and the way back to the product to start again. */
export function ClosedNotice({ view, status }: { view: CheckoutView; status: Reason }) {
  const copy = COPY[status];
  return (
    <StatusPanel
      tone="stopped"
      title={copy.title}
      testId={status === "test_mode_off" ? "test-mode-off" : undefined}
      actions={
        <>
          <Link href={checkoutPaths.buyAgain(view.product.id)} className={buttonPrimary}>
            Start a new checkout
          </Link>
          <Link href="/" className={buttonSecondary}>
            Browse the store
          </Link>
        </>
      }
      footer={<ProductSummary product={view.product} linkName showTagline={false} />}
    >
      <p>{copy.body}</p>
      <p>To buy {view.product.name}, start again from its product page.</p>
    </StatusPanel>
  );
}
