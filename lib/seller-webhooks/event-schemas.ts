import { z } from "zod";
import { INTERVALS, SUBSCRIPTION_STATUSES } from "../subscriptions/plans.ts";
import type { subscriptionPayload } from "../subscriptions/lifecycle.ts";
import { SELLER_EVENT_TYPES, TEST_EVENT_TYPE, type SellerEventType } from "./events.ts";
import type { actorPayload, disputePayload, licensePayload, machinePayload, orderPayload, refundPayload, releasePayload } from "./payloads.ts";

/**
 * The `data` of every seller webhook, as zod schemas: what /openapi.json's `webhooks` publishes (one entry per event
 * type of SELLER_EVENT_TYPES, so a type added to the catalogue appears there by itself) and what tests validate the
 * queued payloads against. Each object schema is held to the payload builder that makes it (payloads.ts,
 * subscriptionPayload): `Same<>` below fails the type check when a builder gains, loses or retypes a field and the
 * schema does not follow.
 */

const iso = z.iso.datetime({ offset: true }).describe("ISO 8601 time");
const isoOrNull = iso.nullable();

const licenseSchema = z
  .object({
    id: z.string(),
    key: z.string().describe("The license key"),
    product_id: z.string(),
    plugin_id: z.string(),
    buyer_email: z.string(),
    status: z.enum(["active", "revoked"]),
    revocation: z.string().nullable().describe('Why it is revoked: "seller", "refunded", "disputed", "dispute_lost", "upgraded"; null while active'),
    max_machines: z.int(),
    active_machines: z.int(),
    source: z.string().describe('How it was issued: "purchase", "complimentary", …'),
    order_id: z.string().nullable(),
    issued_at: isoOrNull,
    expires_at: isoOrNull,
  })
  .describe("The license as it is after the change");

const actorSchema = z
  .object({
    type: z.enum(["buyer", "seller", "operator", "app", "payment", "system"]),
    name: z.string().nullable().describe('An e-mail, "token:<name>", the payment provider; null when the type says it all'),
  })
  .describe("Who made the change");

const machineSchema = z
  .object({ fingerprint: z.string(), name: z.string().nullable(), platform: z.string().nullable(), app_version: z.string().nullable() })
  .describe("The machine concerned (activations and deactivations)");

const orderSchema = z
  .object({
    id: z.string(),
    product_id: z.string(),
    buyer_email: z.string(),
    quantity: z.int(),
    currency: z.string().describe("ISO 4217, lower case"),
    subtotal_cents: z.int(),
    discount_cents: z.int(),
    coupon_code: z.string().nullable(),
    amount_cents: z.int().describe("What the buyer paid for the product, after discount and before tax (minor units)"),
    tax_cents: z.int().nullable(),
    refunded_cents: z.int(),
    status: z.string(),
    dispute_status: z.string().nullable(),
    paid_at: isoOrNull,
  })
  .describe("The order; amounts in minor units of its currency");

const refundSchema = z.object({
  id: z.string(),
  amount_cents: z.int(),
  currency: z.string(),
  reason: z.string(),
  initiated_by: z.string(),
  full: z.boolean().describe("Whether the order is now refunded in full"),
});

const disputeSchema = z.object({
  id: z.string(),
  amount_cents: z.int(),
  currency: z.string(),
  reason: z.string(),
  status: z.string(),
  outcome: z.enum(["won", "lost"]).optional().describe("dispute.closed only"),
});

const subscriptionSchema = z.object({
  id: z.string(),
  kind: z.string().describe('"subscription", or "updates_plan" (a year of updates)'),
  product_id: z.string(),
  buyer_email: z.string(),
  license_id: z.string().nullable(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  interval: z.enum(INTERVALS),
  quantity: z.int(),
  unit_amount_cents: z.int(),
  currency: z.string(),
  coupon_code: z.string().nullable(),
  current_period_start: iso,
  current_period_end: iso,
  trial_end: isoOrNull,
  cancel_at_period_end: z.boolean(),
  canceled_at: isoOrNull,
  ended_at: isoOrNull,
  end_reason: z.string().nullable(),
  past_due_since: isoOrNull,
  grace_days: z.int(),
  paid_periods: z.int(),
  provider: z.string(),
  created_at: iso,
});

const artifactSchema = z.object({
  platform: z.string(),
  format: z.string().nullable().describe("The plugin format; null for an application"),
  file_type: z.string(),
  filename: z.string(),
  size: z.int(),
  sha256: z.string(),
});

/** The release events' data: what was published or withdrawn, never a download link (those are per buyer). */
const releaseDataSchema = z.object({
  product: z.object({ id: z.string(), name: z.string(), plugin_id: z.string() }),
  release: z.object({
    id: z.string(),
    version: z.string(),
    channel: z.string(),
    published_at: isoOrNull,
    yanked_at: isoOrNull.optional().describe("release.yanked only"),
    notes: z.string(),
    artifacts: z.array(artifactSchema),
  }),
});

/* The builders' return types and the schemas must agree field for field (mutual assignability and the same keys). */
type Same<A, B> = [A] extends [B]
  ? [B] extends [A]
    ? [keyof A] extends [keyof B]
      ? [keyof B] extends [keyof A]
        ? true
        : false
      : false
    : false
  : false;
const agree = <A, B>(ok: Same<A, B>): Same<A, B> => ok;
agree<z.output<typeof licenseSchema>, ReturnType<typeof licensePayload>>(true);
agree<z.output<typeof actorSchema>, ReturnType<typeof actorPayload>>(true);
agree<z.output<typeof machineSchema>, ReturnType<typeof machinePayload>>(true);
agree<z.output<typeof orderSchema>, ReturnType<typeof orderPayload>>(true);
agree<z.output<typeof refundSchema>, ReturnType<typeof refundPayload>>(true);
agree<z.output<typeof disputeSchema>, ReturnType<typeof disputePayload>>(true);
agree<z.output<typeof subscriptionSchema>, ReturnType<typeof subscriptionPayload>>(true);
agree<z.output<typeof releaseDataSchema>, ReturnType<typeof releasePayload>>(true);

const licenseData = z.object({
  license: licenseSchema,
  actor: actorSchema,
  machine: machineSchema.optional(),
  reason: z.string().optional().describe('license.revoked: why (as `license.revocation`); license.transferred: "transferred"'),
});

/** An event type's family: the part before the dot ("license" of "license.revoked"). */
type Family = SellerEventType extends infer T ? (T extends `${infer F}.${string}` ? F : never) : never;

/**
 * Each family's data; a type may refine its family's (order.refunded adds the refund). A new family in the catalogue
 * fails the type check here until its data is described; a new type of a known family is described already.
 */
const FAMILY_DATA: Record<Family, z.ZodType> = {
  order: z.object({ order: orderSchema }),
  license: licenseData,
  release: releaseDataSchema,
  dispute: z.object({ order: orderSchema, dispute: disputeSchema }),
  subscription: z.object({ subscription: subscriptionSchema, actor: actorSchema }),
};
const TYPE_DATA: Partial<Record<SellerEventType, z.ZodType>> = {
  "order.refunded": z.object({ order: orderSchema, refund: refundSchema }),
};

const EVENT_SUMMARIES: Partial<Record<SellerEventType, string>> = {
  "order.paid": "An order was paid",
  "order.refunded": "An order was refunded, in part or in full",
  "license.created": "A license was issued (a sale, a complimentary license, an upgrade)",
  "license.activated": "A machine was activated on a license",
  "license.deactivated": "A machine was released from a license",
  "license.revoked": "A license was revoked (by the seller, a refund, a dispute or an upgrade)",
  "license.reinstated": "A revoked license was reinstated",
  "license.transferred": "A license moved to another holder (a new key; its machines were released)",
  "release.published": "A release was published",
  "release.yanked": "A published release was withdrawn (yanked)",
  "dispute.opened": "A payment dispute was opened; the license is suspended",
  "dispute.closed": "A payment dispute was closed, won or lost",
};

/** The `data` schema of one seller event type. */
function sellerEventDataSchema(type: SellerEventType): z.ZodType {
  const family = type.slice(0, type.indexOf(".")) as Family;
  return TYPE_DATA[type] ?? FAMILY_DATA[family];
}

/** The data of the test event ("Send test event"): not subscribable, sent to one endpoint on demand. */
const testEventData = z.object({ endpoint_id: z.string(), message: z.string() });

/** The whole body of a seller webhook of this type (Standard Webhooks' recommended shape). */
export function sellerEventBodySchema(type: SellerEventType | typeof TEST_EVENT_TYPE): z.ZodType {
  return z.object({
    type: z.literal(type),
    timestamp: iso.describe("When the fact happened"),
    data: type === TEST_EVENT_TYPE ? testEventData : sellerEventDataSchema(type),
  });
}

/** Every type a seller endpoint may receive, with a one-line summary: the catalogue and the test event. */
export function sellerWebhookCatalogue(): Array<{ type: SellerEventType | typeof TEST_EVENT_TYPE; summary: string }> {
  return [
    ...SELLER_EVENT_TYPES.map((type) => ({
      type,
      summary: EVENT_SUMMARIES[type] ?? `${type.slice(0, type.indexOf("."))} ${type.slice(type.indexOf(".") + 1).replace(/_/g, " ")}`,
    })),
    { type: TEST_EVENT_TYPE, summary: "A test event, sent on demand from the dashboard or the API" },
  ];
}
