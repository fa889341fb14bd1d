import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { refreshPayoutAccount } from "@/lib/payouts/stripe-connect";

export const dynamic = "force-dynamic";

/**
 * Stripe's return_url after onboarding. Returning says nothing about the outcome (the seller may have left half-way),
 * so the account is read from Stripe now: the page is right before the account.updated event arrives.
 */
export async function GET() {
  const { developer } = await requireSeller();
  let to = "/dashboard/payouts?notice=payout-updated";
  try {
    await refreshPayoutAccount(developer.id);
  } catch (error) {
    if (!(error instanceof AppError) || (error.status >= 500 && error.status !== 502)) throw error;
    to = `/dashboard/payouts?error=${error.status === 502 ? "payout-unavailable" : "payout-refused"}`;
  }
  redirect(to);
}
