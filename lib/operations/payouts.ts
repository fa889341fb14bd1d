import { z } from "zod";
import { getPayoutAccount, payoutAccountSchema } from "../payouts/payout-account.ts";
import {
  connectInputSchema,
  connectOutputSchema,
  connectPayoutAccount,
  payoutDashboardLink,
  refreshPayoutAccount,
} from "../payouts/stripe-connect.ts";
import type { Operation } from "./define.ts";
import { operation } from "./define.ts";

/**
 * The payouts operations (issue 13), each declared once; REST, MCP, OpenAPI and the manifest derive from them. Every
 * one acts on the signed-in seller's own payout account only: there is no account id in any input to point elsewhere.
 */
export const PAYOUTS: Operation[] = [
  operation({
    id: "getPayoutAccount",
    summary: "Your payout account",
    description:
      "Whether sales can reach you: the payout account's provider, status (ready, action needed, in review, not connected) and what is still due, in the provider's terms and in plain words. A paid listing needs a ready account.",
    tag: "Payouts",
    auth: "seller",
    sellerScope: "session",
    http: { method: "GET", path: "/api/v1/payouts" },
    output: z.object({ payout_account: payoutAccountSchema }),
    errors: [401, 403],
    handler: async (_i, c) => ({ payout_account: await getPayoutAccount(c.seller.developer.id) }),
  }),
  operation({
    id: "connectPayoutAccount",
    summary: "Connect your payout account",
    description:
      "With Stripe: creates your Stripe Express account once and returns a single-use onboarding URL to open (Stripe collects your identity and bank details; we never see them). In test mode: connects the built-in test payout account, ready at once (url is null). 409 payouts_not_configured when the deployment has no payment provider.",
    tag: "Payouts",
    auth: "seller",
    sellerScope: "session",
    http: { method: "POST", path: "/api/v1/payouts/connect" },
    input: { body: connectInputSchema },
    output: connectOutputSchema,
    errors: [401, 403, 409, 502],
    handler: async (b, c) => connectPayoutAccount(c.seller.developer, b),
  }),
  operation({
    id: "payoutDashboardLink",
    summary: "Open your Stripe Express dashboard",
    description:
      "A single-use link into your Stripe Express dashboard (payout schedule, bank details, tax forms). 404 without a payout account; 409 for the test account or before onboarding is finished.",
    tag: "Payouts",
    auth: "seller",
    sellerScope: "session",
    http: { method: "POST", path: "/api/v1/payouts/dashboard-link" },
    output: z.object({ url: z.string() }),
    errors: [401, 403, 404, 409, 502],
    handler: async (_i, c) => payoutDashboardLink(c.seller.developer.id),
  }),
  operation({
    id: "refreshPayoutAccount",
    summary: "Read your payout account from Stripe again",
    description:
      "On the seller's return from Stripe's onboarding (which says nothing about the outcome): the account is read from Stripe now, so the Payouts page is right before Stripe's account.updated event arrives. Without a Stripe account it only reads.",
    tag: "Payouts",
    auth: "seller",
    sellerScope: "session",
    readOnly: false,
    idempotencyExempt: "it stores what Stripe says now, and only when nothing newer is held",
    output: z.object({ payout_account: payoutAccountSchema }),
    errors: [401, 403, 502],
    handler: async (_i, c) => ({ payout_account: await refreshPayoutAccount(c.seller.developer.id) }),
  }),
];
