import type Stripe from "stripe";
import { recordEntries } from "../ledger/ledger.ts";
import type { AppliedEvent } from "../payments/apply-payment-event.ts";
import { applyOnce } from "../payments/event-log.ts";

type Effect = { outcome: string; applied: boolean };

const ignored = (why: string): Effect => ({ outcome: `ignored: ${why}`, applied: false });

function result(r: { duplicate: true } | ({ duplicate: false } & Effect)): AppliedEvent {
  if (r.duplicate) return { duplicate: true, applied: false, fulfilled: false, reason: "duplicate" };
  return { duplicate: false, applied: r.applied, fulfilled: false, reason: r.outcome };
}

/**
 * Connect account events, each applied exactly once (applyOnce: the event's record and its effect in one
 * transaction, so a redelivery, a concurrent duplicate or another instance changes nothing).
 * - `account.updated`: the account's status (charges and payouts enabled, details submitted, what is still due),
 *   stored only if the event is at least as new as the status held: Stripe does not deliver in order, and an older
 *   event must never overwrite a newer status (nor the fresher read made when the seller came back from onboarding).
 * - `account.application.deauthorized`: the seller removed the platform's access; the account takes no more sales,
 *   whatever the order of events, and connecting again starts a new account.
 * An account we do not hold (another platform's, or one replaced since) is recorded and ignored.
 */
export async function applyAccountEvent(event: Stripe.Event): Promise<AppliedEvent> {
  const accountId = event.type === "account.updated" ? event.data.object.id : typeof event.account === "string" ? event.account : null;
  const r = await applyOnce({ id: event.id, provider: "stripe", type: event.type, accountId }, async (tx): Promise<Effect> => {
    if (event.type !== "account.updated" && event.type !== "account.application.deauthorized") return ignored("not a status change");
    const row = accountId ? await tx.payoutAccount.findUnique({ where: { id: accountId } }) : null;
    if (!row || row.provider !== "stripe") return ignored("unknown account");
    if (event.type === "account.application.deauthorized") {
      await tx.payoutAccount.update({
        where: { id: row.id },
        data: {
          chargesEnabled: false,
          payoutsEnabled: false,
          requirementsDue: ["deauthorized"],
          statusAsOf: Math.max(row.statusAsOf, event.created),
        },
      });
      return { outcome: "deauthorized: not ready", applied: true };
    }
    const account = event.data.object;
    const due = account.requirements?.currently_due ?? [];
    const data = {
      chargesEnabled: account.charges_enabled,
      payoutsEnabled: account.payouts_enabled,
      detailsSubmitted: account.details_submitted,
      requirementsDue: due,
      statusAsOf: event.created,
    };
    // One conditional update: of two racing events, the older cannot land after the newer.
    const { count } = await tx.payoutAccount.updateMany({ where: { id: row.id, statusAsOf: { lte: event.created } }, data });
    if (count === 0) return ignored("older than the status held");
    const ready = data.chargesEnabled && data.payoutsEnabled;
    return { outcome: `${ready ? "ready" : "not ready"}${due.length ? ` (due: ${due.join(", ")})` : ""}`, applied: true };
  });
  return result(r);
}

/**
 * `payout.paid` from a connected account (event.account): Stripe paid the seller out to their bank. The ledger
 * records it once, as a negative "payout" entry keyed by the payout's id, in the payout's currency, dated when it
 * arrives. Other payout events (created, updated, failed before paying) move no money on the seller's ledger.
 */
export async function applyPayoutEvent(event: Stripe.Event): Promise<AppliedEvent> {
  const accountId = typeof event.account === "string" ? event.account : null;
  const r = await applyOnce({ id: event.id, provider: "stripe", type: event.type, accountId }, async (tx): Promise<Effect> => {
    if (event.type !== "payout.paid") return ignored("no ledger movement");
    const row = accountId ? await tx.payoutAccount.findUnique({ where: { id: accountId } }) : null;
    if (!row || row.provider !== "stripe") return ignored("unknown account");
    const payout = event.data.object;
    if (!Number.isSafeInteger(payout.amount) || payout.amount <= 0 || !/^[a-z]{3}$/.test(payout.currency)) {
      return ignored("no amount");
    }
    const written = await recordEntries(tx, [
      {
        key: `payout:${payout.id}`,
        developerId: row.developerId,
        kind: "payout",
        amountMinor: -payout.amount,
        currency: payout.currency,
        createdAt: new Date((payout.arrival_date || event.created) * 1000),
        memo: `Stripe payout ${payout.id}`,
      },
    ]);
    return written ? { outcome: `payout ${payout.amount} ${payout.currency}`, applied: true } : ignored("payout already recorded");
  });
  return result(r);
}
