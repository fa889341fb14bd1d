import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { getDb } from "@/lib/db";
import { dueList } from "@/lib/payouts/requirements";
import { runOperationFor } from "@/lib/transports/action";

export const dynamic = "force-dynamic";

/**
 * Stripe's refresh_url: the onboarding link expired or was opened twice, so Stripe asks for a new one. Only an
 * existing Stripe account gets one (a link to someone's own onboarding is harmless even if another site sent them
 * here), through the connectPayoutAccount operation; creating an account takes the Payouts page's button, a POST
 * from our own origin.
 */
export async function GET(request: Request) {
  const { developer } = await requireSeller();
  const account = await getDb().payoutAccount.findUnique({ where: { developerId: developer.id }, select: { provider: true, requirementsDue: true } });
  if (account?.provider !== "stripe" || dueList(account.requirementsDue).includes("deauthorized")) redirect("/dashboard/payouts");
  const outcome = await runOperationFor<{ url: string | null }>(request, "connectPayoutAccount", { body: {} });
  if (!outcome.ok) {
    if (outcome.problem.status === 500) throw outcome.problem;
    redirect(`/dashboard/payouts?error=${outcome.problem.status === 502 ? "payout-unavailable" : "payout-refused"}`);
  }
  redirect(outcome.output.url ?? "/dashboard/payouts");
}
