import { randomBytes } from "node:crypto";
import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { testPaymentsEnabled } from "../payments/provider.ts";

/**
 * The built-in test payout account: in test mode (no Stripe) it stands in for a Connect account, ready at once, so a
 * seller can publish paid listings and the whole money flow runs offline. Idempotent: a seller keeps one account.
 * Refused when test mode is not this deployment's provider (a real deployment connects a real account).
 */
export async function connectTestPayoutAccount(developerId: string) {
  if (!testPaymentsEnabled()) {
    throw new AppError("test_mode_off", 409, "The test payout account exists only in test mode; connect a Stripe account instead.");
  }
  const db = getDb();
  const existing = await db.payoutAccount.findUnique({ where: { developerId } });
  if (existing && existing.provider !== "test") {
    throw new AppError("payout_account_exists", 409, "This seller already has a Stripe payout account.");
  }
  return db.payoutAccount.upsert({
    where: { developerId },
    create: {
      id: `test_acct_${randomBytes(12).toString("hex")}`,
      developerId,
      provider: "test",
      chargesEnabled: true,
      payoutsEnabled: true,
      detailsSubmitted: true,
      requirementsDue: [],
      statusAsOf: Math.floor(Date.now() / 1000),
    },
    update: {},
  });
}
