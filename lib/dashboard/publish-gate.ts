import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";
import { dueList, requirementsInWords } from "../payouts/requirements.ts";

/** Why a seller may not publish a listing right now; null when they may. */
export interface PublishBlocker {
  code: "seller_suspended" | "payout_account_required";
  status: 403 | 409;
  message: string;
}

/** A payout account can take a paid sale only when the provider lets it both charge and pay out. */
export function payoutReady(account: { chargesEnabled: boolean; payoutsEnabled: boolean } | null | undefined): boolean {
  return Boolean(account?.chargesEnabled && account.payoutsEnabled);
}

/**
 * The one rule for publishing (creating a listed product, relisting, or making a listed product paid): a suspended
 * seller publishes nothing; a paid listing needs a ready payout account (free listings do not).
 */
export async function publishBlocker(developerId: string, priceCents: number): Promise<PublishBlocker | null> {
  const developer = await getDb().developer.findUnique({
    where: { id: developerId },
    select: {
      suspendedAt: true,
      payoutAccount: { select: { provider: true, chargesEnabled: true, payoutsEnabled: true, requirementsDue: true } },
    },
  });
  if (!developer) return null;
  if (developer.suspendedAt) {
    return {
      code: "seller_suspended",
      status: 403,
      message: "Your seller account is suspended by the operator: you cannot publish listings. Licenses you sold keep working.",
    };
  }
  // The test account takes no real money: once the deployment sells through Stripe it no longer counts as ready.
  const account = developer.payoutAccount?.provider === "test" && !testPaymentsEnabled() ? null : developer.payoutAccount;
  if (priceCents > 0 && !payoutReady(account)) {
    const due = requirementsInWords(dueList(account?.requirementsDue)).map((w) => w.charAt(0).toLowerCase() + w.slice(1));
    const missing = !account
      ? "Connect a payout account first (Dashboard → Payouts), so the money from your sales can reach you."
      : `Your payout account is not ready yet${due.length ? ` (still due: ${due.join("; ")})` : ""}: finish onboarding under Dashboard → Payouts.`;
    return {
      code: "payout_account_required",
      status: 409,
      message: `A paid listing needs a payout account that can take payments. ${missing}`,
    };
  }
  return null;
}

/** Throws the blocker as a problem document (403 seller_suspended, 409 payout_account_required). */
export async function assertMayPublish(developerId: string, priceCents: number): Promise<void> {
  const blocker = await publishBlocker(developerId, priceCents);
  if (blocker) throw new AppError(blocker.code, blocker.status, blocker.message);
}
