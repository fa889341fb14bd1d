import Stripe from "stripe";
import { z } from "zod";
import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { paymentMode } from "../payments/provider.ts";
import { stripeClient } from "../payments/stripe-client.ts";
import { absoluteUrl } from "../urls.ts";
import { getPayoutAccount, payoutAccountSchema, payoutAccountView, type PayoutAccountOut } from "./payout-account.ts";
import { dueList } from "./requirements.ts";
import { connectTestPayoutAccount } from "./test-account.ts";

/** Where Stripe sends the seller back after onboarding, and where an expired onboarding link leads. */
const RETURN_PATH = "/dashboard/payouts/return";
const REFRESH_PATH = "/dashboard/payouts/refresh";

export const connectInputSchema = z
  .object({
    country: z
      .string()
      .regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code in capitals, e.g. DE")
      .optional()
      .describe("Where the seller's business is (Stripe only; fixed once the account exists). Default: the platform's country."),
  })
  .strict();

export const connectOutputSchema = z.object({
  provider: z.enum(["stripe", "test"]),
  url: z.string().nullable().describe("Stripe's onboarding page to send the seller to (single use, expires in minutes); null for the test account."),
  payout_account: payoutAccountSchema,
});

/** The status fields we keep of a Stripe account. */
function statusOf(account: Stripe.Account) {
  return {
    chargesEnabled: account.charges_enabled,
    payoutsEnabled: account.payouts_enabled,
    detailsSubmitted: account.details_submitted,
    requirementsDue: account.requirements?.currently_due ?? [],
  };
}

/** Stripe refused the request itself (a bad parameter, an account not ready for it): the seller's 409, not our 5xx. */
function stripeFailure(error: unknown, doing: string): never {
  if (error instanceof AppError) throw error;
  if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripePermissionError) {
    throw new AppError("payout_provider_refused", 409, `Stripe refused to ${doing}: ${error.message}`);
  }
  throw new AppError("payment_provider_unavailable", 502, `Stripe could not be reached to ${doing}. Nothing changed; try again in a moment.`);
}

function payoutsNotConfigured(): AppError {
  return new AppError(
    "payouts_not_configured",
    409,
    "Payouts cannot be set up on this deployment: no payment provider is configured (the operator sets STRIPE_SECRET_KEY to use Stripe Connect).",
  );
}

/**
 * The seller's Stripe account, created once. An Express account (configured with controller properties, which Stripe
 * now asks for instead of `type: "express"`): the Express dashboard, Stripe collects the requirements, and the
 * platform pays Stripe's fees and carries losses, as destination charges need. The idempotency key makes a retried or
 * doubled click return the same account within Stripe's 24 h key window; the unique developerId column keeps one row
 * if two different requests still race, and the loser's account is simply never used.
 */
async function ensureStripeAccount(developer: { id: string; email: string }, country: string | undefined) {
  const db = getDb();
  const existing = await db.payoutAccount.findUnique({ where: { developerId: developer.id } });
  // A disconnected account (the seller removed the platform's access) cannot be onboarded again: start a new one.
  const gone = existing?.provider === "stripe" && dueList(existing.requirementsDue).includes("deauthorized");
  if (existing?.provider === "stripe" && !gone) return existing;
  let account: Stripe.Account;
  try {
    account = await stripeClient().accounts.create(
      {
        controller: {
          stripe_dashboard: { type: "express" },
          fees: { payer: "application" },
          losses: { payments: "application" },
          requirement_collection: "stripe",
        },
        email: developer.email,
        ...(country ? { country } : {}),
        capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
        metadata: { developer_id: developer.id },
      },
      { idempotencyKey: `payout-account-${developer.id}-${existing?.id ?? "first"}-${country ?? "default"}` },
    );
  } catch (error) {
    stripeFailure(error, "create your payout account");
  }
  const data = { id: account.id, developerId: developer.id, provider: "stripe", ...statusOf(account), statusAsOf: account.created ?? 0 };
  try {
    // A test account from test mode, or a disconnected Stripe account, is replaced (orders keep the id they were paid to).
    return await db.$transaction(async (tx) => {
      if (existing) await tx.payoutAccount.deleteMany({ where: { id: existing.id, developerId: developer.id } });
      return tx.payoutAccount.create({ data });
    });
  } catch (error) {
    if ((error as { code?: string } | null)?.code !== "P2002") throw error;
    // Another request stored this seller's account first: use that one.
    return db.payoutAccount.findUniqueOrThrow({ where: { developerId: developer.id } });
  }
}

/**
 * Connects the seller's payout account. With Stripe: the Express account (created once) and a fresh Account Link to
 * Stripe's onboarding, where the seller gives Stripe their identity and bank details (never us). In test mode: the
 * built-in test account, ready at once. Without a payment provider nothing can be connected.
 */
export async function connectPayoutAccount(
  developer: { id: string; email: string },
  // Parsed by the caller (connectPayoutAccount's operation parses connectInputSchema): not parsed again here.
  { country }: z.infer<typeof connectInputSchema> = {},
): Promise<z.infer<typeof connectOutputSchema>> {
  const mode = paymentMode().provider;
  if (mode === null) throw payoutsNotConfigured();
  if (mode === "test") {
    await connectTestPayoutAccount(developer.id);
    return { provider: "test", url: null, payout_account: await getPayoutAccount(developer.id) };
  }
  const row = await ensureStripeAccount(developer, country);
  let link: Stripe.AccountLink;
  try {
    link = await stripeClient().accountLinks.create({
      account: row.id,
      type: "account_onboarding",
      refresh_url: absoluteUrl(REFRESH_PATH),
      return_url: absoluteUrl(RETURN_PATH),
    });
  } catch (error) {
    stripeFailure(error, "open onboarding");
  }
  return { provider: "stripe", url: link.url, payout_account: payoutAccountView(row) };
}

/**
 * Re-reads the seller's Stripe account (on their return from onboarding), so the page is right before the
 * account.updated event arrives. Stored only if nothing newer is held: the read is as of now.
 */
export async function refreshPayoutAccount(developerId: string): Promise<PayoutAccountOut> {
  const db = getDb();
  const row = await db.payoutAccount.findUnique({ where: { developerId } });
  if (!row || row.provider !== "stripe" || paymentMode().provider !== "stripe") return payoutAccountView(row);
  let account: Stripe.Account;
  try {
    account = await stripeClient().accounts.retrieve(row.id);
  } catch (error) {
    stripeFailure(error, "read your payout account");
  }
  const asOf = Math.floor(Date.now() / 1000);
  await db.payoutAccount.updateMany({ where: { id: row.id, statusAsOf: { lte: asOf } }, data: { ...statusOf(account), statusAsOf: asOf } });
  return getPayoutAccount(developerId);
}

/** A single-use link into the seller's Stripe Express dashboard (payouts, bank details, tax forms). */
export async function payoutDashboardLink(developerId: string): Promise<{ url: string }> {
  const row = await getDb().payoutAccount.findUnique({ where: { developerId } });
  if (!row) throw notFound("payout_account", "You have not connected a payout account yet (Dashboard → Payouts).");
  if (row.provider !== "stripe") {
    throw new AppError("no_provider_dashboard", 409, "The test payout account has no Stripe dashboard: no money moves in test mode.");
  }
  if (paymentMode().provider !== "stripe") throw payoutsNotConfigured();
  if (!row.detailsSubmitted) {
    throw new AppError(
      "payout_onboarding_incomplete",
      409,
      "Finish Stripe's onboarding first; the Express dashboard opens once your details are in.",
    );
  }
  try {
    const link = await stripeClient().accounts.createLoginLink(row.id);
    return { url: link.url };
  } catch (error) {
    stripeFailure(error, "open your Express dashboard");
  }
}
