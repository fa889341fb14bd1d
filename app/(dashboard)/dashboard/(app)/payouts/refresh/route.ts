import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { getDb } from "@/lib/db";
import { AppError } from "@/lib/http/errors";
import { dueList } from "@/lib/payouts/requirements";
import { connectPayoutAccount } from "@/lib/payouts/stripe-connect";

export const dynamic = "force-dynamic";

/**
 * Stripe's refresh_url: the onboarding link expired or was opened twice, so Stripe asks for a new one. Only an
 * existing Stripe account gets one (a link to someone's own onboarding is harmless even if another site sent them
 * here); creating an account takes the Payouts page's button, a POST from our own origin.
 */
export async function GET() {
  const { developer } = await requireSeller();
  const account = await getDb().payoutAccount.findUnique({ where: { developerId: developer.id }, select: { provider: true, requirementsDue: true } });
  if (account?.provider !== "stripe" || dueList(account.requirementsDue).includes("deauthorized")) redirect("/dashboard/payouts");
  let url: string | null;
  try {
    url = (await connectPayoutAccount(developer)).url;
  } catch (error) {
    if (!(error instanceof AppError) || (error.status >= 500 && error.status !== 502)) throw error;
    redirect(`/dashboard/payouts?error=${error.status === 502 ? "payout-unavailable" : "payout-refused"}`);
  }
  redirect(url ?? "/dashboard/payouts");
}
