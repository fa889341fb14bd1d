import { z } from "zod";
import {
  advanceClockSchema,
  advanceTestClock,
  billingPortalUrl,
  cancelSubscriptionAs,
  getSubscription,
  listSubscriptions,
  listSubscriptionsQuery,
  resumeSubscriptionAs,
  setTestCard,
  subscriptionSchema,
  testCardSchema,
} from "../subscriptions/manage.ts";
import { subscriptionMetrics } from "../subscriptions/metrics.ts";
import { changePlan, planChangeQuoteSchema, planChangeSchema, previewPlanChange } from "../subscriptions/change-plan.ts";
import { absoluteUrl, paths } from "../urls.ts";
import type { Operation } from "./define.ts";
import { operation } from "./define.ts";

const idParams = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, "a subscription id (sub_…)")
    .describe("The subscription's id (sub_…)"),
});
const one = z.object({ subscription: subscriptionSchema });
const subscriptionMetricsSchema = z.object({
  currency: z.string(),
  mrr_cents: z.int().describe("Monthly recurring revenue: what the subscriptions that renew charge a month (yearly ones a twelfth)"),
  mrr_display: z.string(),
  active: z.int().describe("Subscriptions paid up, being retried, or canceled but not yet ended"),
  trialing: z.int(),
  churned_30d: z.int(),
  churn_rate: z.number().nullable().describe("Of those running 30 days ago, the fraction ended since; null with none"),
  upcoming_30d: z.object({ count: z.int(), amount_cents: z.int(), amount_display: z.string() }),
});

/**
 * Subscriptions (issue 32), for the three who may act on one: its seller (dashboard and seller API, the `orders`
 * scope, like refunds), its buyer (My licenses) and the operator (the console, and test mode's clock). Each acts on
 * what it may reach only: another seller's or buyer's subscription is a 404.
 */
export const SUBSCRIPTIONS: Operation[] = [
  operation({
    id: "listSubscriptions",
    summary: "Your subscribers",
    description:
      "Your products' subscriptions, newest first: status, interval, seats, price, the current period and the next charge; and per currency your MRR, subscribers, free trials, those ended in the last 30 days (with the churn rate) and the renewals due in the next 30.",
    tag: "Subscriptions",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "GET", path: "/api/v1/subscriptions" },
    input: { query: listSubscriptionsQuery },
    output: z.object({ subscriptions: z.array(subscriptionSchema), metrics: z.array(subscriptionMetricsSchema) }),
    errors: [401, 403],
    handler: async (q, c) => ({
      subscriptions: await listSubscriptions({ developerId: c.seller.developer.id }, q),
      metrics: await subscriptionMetrics(c.seller.developer.id),
    }),
  }),
  operation({
    id: "getSubscription",
    summary: "One subscription",
    tag: "Subscriptions",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "GET", path: "/api/v1/subscriptions/{id}" },
    input: { params: idParams },
    output: one,
    errors: [401, 403, 404],
    handler: async (p, c) => ({ subscription: await getSubscription({ developerId: c.seller.developer.id }, p.id) }),
  }),
  operation({
    id: "cancelSubscription",
    summary: "Cancel a subscription at the end of its period",
    description:
      "Nothing more is charged; the license keeps working until the paid period ends (without the grace days), then the subscription ends and the license answers EXPIRED. A past-due subscription ends at once. 409 subscription_ended, subscription_already_canceled. To give money back as well, refund its latest order: that ends it at once.",
    tag: "Subscriptions",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "POST", path: "/api/v1/subscriptions/{id}/cancel" },
    input: { params: idParams },
    output: one,
    errors: [401, 403, 404, 409],
    handler: async (p, c) => ({
      subscription: await cancelSubscriptionAs({ developerId: c.seller.developer.id }, p.id, { type: "seller", name: c.seller.actor }),
    }),
  }),
  operation({
    id: "buyerCancelSubscription",
    summary: "Cancel your subscription at the end of its period",
    tag: "Subscriptions",
    auth: "buyer",
    readOnly: false,
    input: { params: idParams },
    output: one,
    errors: [401, 403, 404, 409, 429],
    handler: async (p, c) => ({
      subscription: await cancelSubscriptionAs({ buyerEmail: c.buyer.email }, p.id, { type: "buyer", name: c.buyer.email }),
    }),
  }),
  operation({
    id: "buyerResumeSubscription",
    summary: "Keep your subscription after all",
    description:
      "Undoes a cancellation before the period ends: it renews at the period's end as before. 409 subscription_not_canceled, subscription_ended.",
    tag: "Subscriptions",
    auth: "buyer",
    readOnly: false,
    input: { params: idParams },
    output: one,
    errors: [401, 403, 404, 409, 429],
    handler: async (p, c) => ({
      subscription: await resumeSubscriptionAs({ buyerEmail: c.buyer.email }, p.id, { type: "buyer", name: c.buyer.email }),
    }),
  }),
  operation({
    id: "buyerPreviewPlanChange",
    summary: "What changing your subscription's plan would charge or refund",
    description:
      "More or fewer seats, or monthly ↔ yearly: the prorated amount charged (or refunded) now, the new price and the next charge. Changes nothing. 409 plan_unchanged, interval_not_offered, quantity_not_allowed, subscription_past_due, subscription_canceling, subscription_ended, not_a_subscription.",
    tag: "Subscriptions",
    auth: "buyer",
    readOnly: true,
    input: { params: idParams, body: planChangeSchema },
    output: z.object({ change: planChangeQuoteSchema }),
    errors: [401, 403, 404, 409, 429],
    handler: async (b, c) => ({ change: await previewPlanChange({ buyerEmail: c.buyer.email }, b.id, b) }),
  }),
  operation({
    id: "buyerChangePlan",
    summary: "Change your subscription's seats or interval",
    description:
      "Charges (or refunds) the prorated amount now and moves the subscription and its license to the new plan. Give expected_amount_cents from the preview: a different amount is refused with 409 amount_changed and nothing changes. 402 payment_declined leaves the plan as it was.",
    tag: "Subscriptions",
    auth: "buyer",
    readOnly: false,
    input: { params: idParams, body: planChangeSchema },
    output: one.extend({ change: planChangeQuoteSchema }),
    errors: [401, 402, 403, 404, 409, 429],
    handler: async (b, c) => changePlan({ buyerEmail: c.buyer.email }, b.id, b, c.buyer.email),
  }),
  operation({
    id: "buyerOpenBillingPortal",
    summary: "Stripe's customer portal for your subscription: card, invoices, billing details",
    description: "A link to Stripe's customer portal, returning to My licenses. 409 not_stripe for a test-mode subscription, subscription_ended.",
    tag: "Subscriptions",
    auth: "buyer",
    readOnly: false,
    idempotencyExempt: "it opens a portal session and changes nothing here; a retry opens another",
    input: { params: idParams },
    output: z.object({ url: z.string() }),
    errors: [401, 403, 404, 409, 429, 502],
    handler: async (p, c) => ({ url: await billingPortalUrl({ buyerEmail: c.buyer.email }, p.id, absoluteUrl(paths.myLicenses)) }),
  }),
  operation({
    id: "buyerSetTestCard",
    summary: "Change the card of a test-mode subscription",
    description:
      "Test mode's stand-in for updating the card: later charges succeed or are declined. A past-due subscription is charged again at once with a card that succeeds. 409 not_test_mode on Stripe, test_mode_off, subscription_ended.",
    tag: "Subscriptions",
    auth: "buyer",
    readOnly: false,
    input: { params: idParams, body: testCardSchema },
    output: one,
    errors: [401, 403, 404, 409, 429],
    handler: async (b, c) => ({ subscription: await setTestCard({ buyerEmail: c.buyer.email }, b.id, b.card) }),
  }),
  operation({
    id: "adminGetSubscription",
    summary: "One subscription (operator)",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/subscriptions/{id}" },
    input: { params: idParams },
    output: one,
    errors: [404],
    handler: async (p) => ({ subscription: await getSubscription({ operator: true }, p.id) }),
  }),
  operation({
    id: "adminCancelSubscription",
    summary: "Cancel a subscription at the end of its period (operator)",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/subscriptions/{id}/cancel" },
    input: { params: idParams },
    output: one,
    errors: [404, 409],
    handler: async (p, c) => ({ subscription: await cancelSubscriptionAs({ operator: true }, p.id, { type: "operator", name: c.admin.email }) }),
  }),
  operation({
    id: "adminSetTestCard",
    summary: "Change the card of a test-mode subscription (operator)",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/subscriptions/{id}/test-card" },
    input: { params: idParams, body: testCardSchema },
    output: one,
    errors: [404, 409],
    handler: async (b) => ({ subscription: await setTestCard({ operator: true }, b.id, b.card) }),
  }),
  operation({
    id: "advanceTestClock",
    summary: "Move a test-mode subscription's clock forward",
    description:
      "Test mode only: `days` pass for one subscription. Renewals that fall in them are charged with its test card (declined ones make it past due; its license stays valid for the grace days, then answers SUBSCRIPTION_PAST_DUE), a cancellation takes effect at its period's end, an unpaid renewal ends it after 14 days. /validate follows at once. 409 not_test_mode, test_mode_off.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/subscriptions/{id}/advance" },
    input: { params: idParams, body: advanceClockSchema },
    output: one,
    errors: [404, 409],
    handler: async (b) => ({ subscription: await advanceTestClock(b.id, b) }),
  }),
];
