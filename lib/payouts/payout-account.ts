import { z } from "zod";
import { payoutReady } from "../selling/publish-gate.ts";
import { getDb } from "../db.ts";
import { paymentMode } from "../payments/provider.ts";
import { dueList, requirementsInWords } from "./requirements.ts";

const PAYOUT_STATUSES = ["not_connected", "action_needed", "in_review", "ready"] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** What the Payouts page and GET /api/v1/payouts show: one seller's payout account as this deployment sees it. */
export const payoutAccountSchema = z.object({
  provider: z
    .enum(["stripe", "test"])
    .nullable()
    .describe("Who holds the account: Stripe Connect, or the built-in test account; null when none is connected."),
  account_id: z.string().nullable().describe("The provider's account id (a Stripe account id acct_…)."),
  status: z
    .enum(PAYOUT_STATUSES)
    .describe(
      "ready: paid listings can sell; action_needed: the seller must provide what requirements_due lists; in_review: the provider is checking; not_connected.",
    ),
  ready: z.boolean().describe("Whether paid listings may be published and sold (charges and payouts enabled)."),
  charges_enabled: z.boolean(),
  payouts_enabled: z.boolean(),
  details_submitted: z.boolean(),
  requirements_due: z.array(z.string()).describe("What the provider still needs, as its field paths (Stripe's requirements.currently_due)."),
  requirements_due_text: z.array(z.string()).describe("The same, in plain words for the seller."),
  connect_with: z
    .enum(["stripe", "test"])
    .nullable()
    .describe(
      "What connecting does on this deployment: Stripe Express onboarding, the test account (test mode), or nothing (null: no payment provider).",
    ),
  updated_at: z.string().nullable(),
});
export type PayoutAccountOut = z.infer<typeof payoutAccountSchema>;

interface Row {
  id: string;
  provider: string;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
  requirementsDue: unknown;
  updatedAt: Date;
}

const TEST_ACCOUNT_ON_STRIPE = "Connect a Stripe account: the test payout account cannot receive real payments";

/** A stored account (or none) as the seller sees it on this deployment. */
export function payoutAccountView(row: Row | null): PayoutAccountOut {
  const connectWith = paymentMode().provider;
  const base = { connect_with: connectWith };
  if (!row) {
    return {
      ...base,
      provider: null,
      account_id: null,
      status: "not_connected",
      ready: false,
      charges_enabled: false,
      payouts_enabled: false,
      details_submitted: false,
      requirements_due: [],
      requirements_due_text: [],
      updated_at: null,
    };
  }
  const due = dueList(row.requirementsDue);
  const fields = {
    ...base,
    provider: row.provider === "stripe" ? ("stripe" as const) : ("test" as const),
    account_id: row.id,
    charges_enabled: row.chargesEnabled,
    payouts_enabled: row.payoutsEnabled,
    details_submitted: row.detailsSubmitted,
    requirements_due: due,
    requirements_due_text: requirementsInWords(due),
    updated_at: row.updatedAt.toISOString(),
  };
  // A test account left over from test mode takes no money once the deployment sells through Stripe.
  if (row.provider === "test" && connectWith !== "test") {
    return { ...fields, status: "action_needed", ready: false, requirements_due_text: [TEST_ACCOUNT_ON_STRIPE] };
  }
  if (payoutReady(row)) return { ...fields, status: "ready", ready: true };
  return { ...fields, status: due.length > 0 || !row.detailsSubmitted ? "action_needed" : "in_review", ready: false };
}

/** The signed-in seller's payout account; only ever their own (looked up by their developer id). */
export async function getPayoutAccount(developerId: string): Promise<PayoutAccountOut> {
  return payoutAccountView(await getDb().payoutAccount.findUnique({ where: { developerId } }));
}
