import { z } from "zod";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { sessionIdSchema } from "../checkout/schemas.ts";

const REFUND_REASON_MAX = 500;
export const ORDERS_PAGE_SIZE = 25;

/** Why the money goes back: one line, shown to the buyer, the seller and the operator. */
const refundReasonSchema = z.string().trim().min(1, "is required").max(REFUND_REASON_MAX).refine(singleLineText, CONTROL_CHARACTER_MESSAGE);

/** An amount in minor units; absent means "all that remains". */
const refundAmountSchema = z.number().int().positive().max(100_000_000);

/** POST /api/v1/orders/{id}/refunds */
export const refundRequestSchema = z.object({
  amount_cents: refundAmountSchema.optional().describe("Minor units of the order's currency; omit to refund all that remains"),
  reason: refundReasonSchema,
});

/** Orders are named by their checkout session id. */
export const orderParamsSchema = z.object({ id: sessionIdSchema });

export const ORDER_STATUSES = ["open", "paid", "expired", "cancelled", "failed"] as const;

export const ordersQuerySchema = z.object({
  q: z.string().trim().max(200).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).optional().describe("Buyer e-mail, order id or product name"),
  status: z.enum(ORDER_STATUSES).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
});
export type OrdersQuery = z.infer<typeof ordersQuerySchema>;

export const refundSchema = z.object({
  id: z.string(),
  order_id: z.string(),
  amount_cents: z.number().int(),
  currency: z.string(),
  reason: z.string(),
  initiated_by: z
    .enum(["seller", "operator", "provider", "buyer"])
    .describe('"buyer": the unused time credited back when the buyer changed a subscription plan'),
  actor: z
    .string()
    .nullable()
    .describe('Who asked for a refund of yours: the dashboard\'s e-mail, or "token:<name>" for a seller API token; null for the others'),
  status: z.enum(["pending", "succeeded", "failed"]),
  created_at: z.string(),
});
export type RefundOut = z.infer<typeof refundSchema>;

const orderSummarySchema = z.object({
  id: z.string(),
  product: z.object({ id: z.string(), name: z.string() }),
  buyer_email: z.string(),
  status: z.enum(ORDER_STATUSES),
  quantity: z.number().int(),
  currency: z.string(),
  amount_cents: z.number().int().describe("Paid for the product, after discount and before tax"),
  tax_cents: z.number().int().nullable(),
  total_cents: z.number().int().describe("amount_cents + tax_cents"),
  refunded_cents: z.number().int(),
  refundable_cents: z.number().int(),
  dispute_status: z.enum(["open", "won", "lost"]).nullable(),
  created_at: z.string(),
  paid_at: z.string().nullable(),
});
export type OrderSummary = z.infer<typeof orderSummarySchema>;

export const orderDetailSchema = orderSummarySchema.extend({
  subtotal_cents: z.number().int(),
  discount_cents: z.number().int(),
  coupon_code: z.string().nullable(),
  fee_cents: z.number().int(),
  provider: z.string(),
  refunds: z.array(refundSchema),
  license: z
    .object({
      id: z.string(),
      key: z.string(),
      is_active: z.boolean(),
      revocation: z.enum(["seller", "refunded", "disputed", "dispute_lost", "upgraded"]).nullable(),
      max_machines: z.number().int(),
    })
    .nullable(),
});
export type OrderDetail = z.infer<typeof orderDetailSchema>;

export const ordersPageSchema = z.object({
  orders: z.array(orderSummarySchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
