import { dbEngine, getDb, type Db } from "../db.ts";
import { AppError, type ProblemFieldError } from "../http/errors.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";
import { dueList, requirementsInWords } from "../payouts/requirements.ts";
import { gapErrors, profileGaps } from "./developer-profile.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];
type Reader = Pick<Tx, "developer">;

/** Why a seller may not publish a listing right now; null when they may. */
export interface PublishBlocker {
  code: "seller_suspended" | "seller_profile_incomplete" | "payout_account_required";
  status: 403 | 409;
  message: string;
  /** The profile fields still to fill in (seller_profile_incomplete). */
  errors?: ProblemFieldError[];
}

/** A payout account can take a paid sale only when the provider lets it both charge and pay out. */
export function payoutReady(account: { chargesEnabled: boolean; payoutsEnabled: boolean } | null | undefined): boolean {
  return Boolean(account?.chargesEnabled && account.payoutsEnabled);
}

/**
 * The one rule for publishing (creating a listed product, relisting, or making a listed product paid): a suspended
 * seller publishes nothing; a paid listing needs a refund policy and a support contact on the seller's profile (its
 * page shows them) and a ready payout account (free listings need neither).
 */
export async function publishBlocker(developerId: string, priceCents: number, db: Reader = getDb()): Promise<PublishBlocker | null> {
  const developer = await db.developer.findUnique({
    where: { id: developerId },
    select: {
      suspendedAt: true,
      refundPolicy: true,
      supportEmail: true,
      supportUrl: true,
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
  const gaps = priceCents > 0 ? profileGaps(developer) : [];
  if (gaps.length > 0) {
    return {
      code: "seller_profile_incomplete",
      status: 409,
      message: `A paid listing shows its seller's refund policy and support contact. Your profile still needs ${gaps.map((g) => g.words).join(" and ")}: add them under Dashboard → Profile.`,
      errors: gapErrors(gaps),
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

/** Throws the blocker as a problem document (403 seller_suspended, 409 seller_profile_incomplete or payout_account_required). */
export async function assertMayPublish(developerId: string, priceCents: number, db: Reader = getDb()): Promise<void> {
  const blocker = await publishBlocker(developerId, priceCents, db);
  if (blocker) throw new AppError(blocker.code, blocker.status, blocker.message, blocker.errors ? { errors: blocker.errors } : {});
}

/**
 * Checks the rule and writes the listing in one transaction, with the seller's row locked (PostgreSQL; SQLite runs
 * one write transaction at a time). The operator's suspension updates that row first, so it either commits before
 * (and the check refuses) or waits for the listing and then hides it with the seller's other listings: a seller
 * cannot slip a listing past a suspension.
 */
export function publishing<T>(developerId: string, priceCents: number, write: (tx: Tx) => Promise<T>): Promise<T> {
  return getDb().$transaction(async (tx) => {
    if (dbEngine() === "postgresql") await tx.$queryRaw`SELECT 1 FROM "Developer" WHERE "id" = ${developerId} FOR UPDATE`;
    await assertMayPublish(developerId, priceCents, tx);
    return write(tx);
  });
}
