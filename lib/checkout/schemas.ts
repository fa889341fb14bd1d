import { z } from "zod";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { productIdSchema } from "../marketplace/schemas.ts";

const ORDER_STATUSES = ["open", "paid", "expired", "cancelled", "failed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const agentIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:@/+-]+$/, "must be a plain identifier (letters, digits and . _ : @ / + -)")
  .describe("Identifier of the agent placing the order, for attribution");

export const createCheckoutRequestSchema = z.object({
  product_id: productIdSchema.describe("Product id from the marketplace"),
  buyer_email: emailSchema.describe("Receives the license key"),
  agent_id: agentIdSchema.optional(),
});
export type CreateCheckoutRequest = z.infer<typeof createCheckoutRequestSchema>;

export const checkoutSessionSchema = z.object({
  url: z.url().describe("Open this URL to pay"),
  session_id: z.string(),
});

export const sessionIdSchema = z.string().regex(/^cs_[A-Za-z0-9]{24}$/, "must be a checkout session id (cs_ followed by 24 letters and digits)");
export const sessionParamsSchema = z.object({ session_id: sessionIdSchema });

export const checkoutStatusSchema = z.object({
  session_id: z.string(),
  status: z.enum(ORDER_STATUSES),
  url: z.url().nullable().describe("Where to pay while the session is open"),
  provider: z.enum(["test", "stripe"]),
  product_id: z.string(),
  product_name: z.string(),
  amount_cents: z.int(),
  fee_cents: z.int().describe("The platform's 5 % fee"),
  currency: z.string(),
  buyer_email: z.string(),
  agent_id: z.string().nullable(),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  paid_at: z.iso.datetime().nullable(),
  license: z
    .object({
      license_key: z.string(),
      plugin_id: z.string(),
      max_machines: z.int(),
      delivered_to: z.string().describe("The address the key was e-mailed to"),
      email_status: z.enum(["queued", "sent"]),
      receipt_url: z.url(),
    })
    .nullable()
    .describe("Present once the order is paid"),
  success_page: z.url(),
});
export type CheckoutStatus = z.infer<typeof checkoutStatusSchema>;
