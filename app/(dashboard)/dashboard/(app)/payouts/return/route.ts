import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { runOperationFor } from "@/lib/transports/action";

export const dynamic = "force-dynamic";

/**
 * Stripe's return_url after onboarding. Returning says nothing about the outcome (the seller may have left half-way),
 * so the account is read from Stripe now (the refreshPayoutAccount operation, through execute()): the page is right
 * before the account.updated event arrives.
 */
export async function GET(request: Request) {
  await requireSeller();
  const outcome = await runOperationFor(request, "refreshPayoutAccount");
  if (!outcome.ok && outcome.problem.status === 500) throw outcome.problem;
  redirect(outcome.ok ? "/dashboard/payouts?notice=payout-updated" : `/dashboard/payouts?error=${payoutError(outcome.problem.status)}`);
}

/** The Payouts page's words for a refusal: the provider did not answer (502), or refused. */
function payoutError(status: number): string {
  return status === 502 ? "payout-unavailable" : "payout-refused";
}
