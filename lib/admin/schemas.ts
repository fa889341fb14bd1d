import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE as CONTROL, multiLineText, singleLineText } from "../http/input.ts";
import { PRODUCT_STATUSES, OPERATOR_PRODUCT_STATUSES } from "../marketplace/constants.ts";
import { refundRequestSchema } from "../refunds/schemas.ts";
import { AUDIT_ACTIONS } from "./audit.ts";

/** Ids of sellers, products and orders: slugs and generated ids, never free text. */
const idSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, "must be an identifier");
export const idParamsSchema = z.object({ id: idSchema });

const limit = z.coerce.number().int().min(1).max(200).default(50).describe("At most this many rows, newest first (1-200, default 50)");
const search = z.string().trim().max(200).refine(singleLineText, CONTROL).optional();

export const sellersQuerySchema = z.object({
  q: search.describe("Part of the seller's name or address, or their id"),
  standing: z.enum(["active", "suspended"]).optional(),
  limit,
});
export const productsQuerySchema = z.object({
  q: search.describe("Part of the product's name or words, its id or plugin id, or the seller's address"),
  status: z.enum([...PRODUCT_STATUSES, ...OPERATOR_PRODUCT_STATUSES]).optional(),
  seller_id: idSchema.optional(),
  limit,
});
export const ordersQuerySchema = z.object({
  q: search.describe("An order id or payment id, part of the buyer's address, a product (id or words) or a seller (id, name or address)"),
  status: z.enum(["open", "paid", "expired", "cancelled", "failed"]).optional(),
  limit,
});
export const eventsQuerySchema = z.object({
  type: z
    .string()
    .trim()
    .max(100)
    .regex(/^[a-z0-9_.]*$/, "must be an event type or its beginning, e.g. charge. or checkout.session.completed")
    .optional(),
  order_id: idSchema.optional(),
  limit,
});
export const auditQuerySchema = z.object({ action: z.enum(AUDIT_ACTIONS).optional(), target_id: idSchema.optional(), limit });

/** Why the operator acts: required for suspensions, removals and refunds; the seller sees removal and suspension reasons. */
const reason = z
  .string()
  .trim()
  .min(3, "give a reason of at least 3 characters")
  .max(500)
  .refine(singleLineText, CONTROL)
  .describe("Why; the seller sees it");
const note = z.string().trim().max(500).refine(multiLineText, CONTROL).optional().describe("A note for the audit log");
export const reasonBodySchema = z.object({ reason });
export const noteBodySchema = z.object({ note });
/** The same refund request a seller makes (lib/refunds/schemas.ts). */
export const refundBodySchema = refundRequestSchema;

const iso = z.string();
const money = z.int();
const figures = {
  currency: z.string(),
  orders: z.int(),
  gross: money,
  discounts: money,
  fees: money,
  fee_refunds: money,
  revenue: money,
  refunds: money,
  disputes: money,
  tax: money,
};
export const overviewSchema = z.object({
  months: z.array(z.object({ month: z.string(), ...figures })),
  totals: z.array(z.object(figures)),
  counts: z.object({ orders_paid: z.int(), sellers: z.int(), sellers_suspended: z.int(), products: z.record(z.string(), z.int()) }),
});
export const adminSellerSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  created_at: iso,
  suspended_at: iso.nullable(),
  suspended_reason: z.string().nullable(),
  products: z.record(z.string(), z.int()),
  payout_ready: z.boolean(),
});
export const adminProductSchema = z.object({
  id: z.string(),
  name: z.string(),
  plugin_id: z.string(),
  status: z.string(),
  moderation_reason: z.string().nullable(),
  price_cents: money,
  currency: z.string(),
  sales_count: z.int(),
  seller: z.object({ id: z.string(), name: z.string(), email: z.string(), suspended: z.boolean() }),
  created_at: iso,
  featured_at: iso.nullable().describe("When the operator featured it on the home page; null when not featured"),
});
export const adminOrderSchema = z.object({
  id: z.string(),
  status: z.string(),
  buyer_email: z.string(),
  product: z.object({ id: z.string(), name: z.string() }),
  seller: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  quantity: z.int(),
  amount_cents: money,
  tax_cents: money.nullable(),
  refunded_cents: money,
  fee_cents: money,
  currency: z.string(),
  coupon_code: z.string().nullable(),
  dispute_status: z.string().nullable(),
  provider: z.string(),
  created_at: iso,
  paid_at: iso.nullable(),
});
export const adminOrderDetailSchema = adminOrderSchema.extend({
  subtotal_cents: money,
  discount_cents: money,
  provider_payment_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  license: z
    .object({ id: z.string(), is_active: z.boolean(), revocation: z.string().nullable(), max_machines: z.int(), active_machines: z.int() })
    .nullable(),
  refunds: z.array(
    z.object({
      id: z.string(),
      amount_cents: money,
      currency: z.string(),
      reason: z.string(),
      initiated_by: z.string(),
      actor_email: z.string().nullable(),
      status: z.string(),
      created_at: iso,
    }),
  ),
  ledger: z.array(z.object({ key: z.string(), kind: z.string(), amount_minor: money, currency: z.string(), created_at: iso })),
  events: z.array(z.object({ id: z.string(), type: z.string(), outcome: z.string().nullable(), processed_at: iso })),
});
export const paymentEventSchema = z.object({
  id: z.string(),
  provider: z.string(),
  type: z.string(),
  order_id: z.string().nullable(),
  account_id: z.string().nullable(),
  outcome: z.string().nullable(),
  processed_at: iso,
});
export const auditEntrySchema = z.object({
  id: z.string(),
  actor_email: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  detail: z.record(z.string(), z.unknown()),
  created_at: iso,
});
