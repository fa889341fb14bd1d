import { z } from "zod";
import { productIdSchema } from "../marketplace/schemas.ts";

export const emailSchema = z
  .email("must be an e-mail address")
  .max(254)
  .transform((s) => s.trim().toLowerCase());

export const startTrialRequestSchema = z.object({
  product_id: productIdSchema,
  buyer_email: emailSchema.describe("Where the trial key belongs; one trial per address and product"),
});

export const trialResultSchema = z.object({
  license_key: z.string(),
  product_id: z.string(),
  plugin_id: z.string(),
  trial: z.literal(true),
  trial_days: z.int(),
  expires_at: z.iso.datetime(),
  created: z.boolean().describe("false when this address already had a trial of this product"),
});
