import { RULES } from "@/lib/http/rate-limit";
import { methods, route } from "@/lib/http/route";
import { startTrial } from "@/lib/licensing/start-trial";
import { startTrialRequestSchema } from "@/lib/licensing/trial-schemas";

export const { GET, POST, PUT, PATCH, DELETE } = methods({
  POST: route({
    body: startTrialRequestSchema,
    rateLimit: ({ client }) => [[RULES.checkout, client]],
    handler: async ({ body }) => {
      const { license, product, created } = await startTrial({ productId: body.product_id, buyerEmail: body.buyer_email });
      return {
        license_key: license.key,
        product_id: product.id,
        plugin_id: product.pluginId,
        trial: true as const,
        trial_days: product.trialDays,
        expires_at: license.expiresAt!.toISOString(),
        created,
      };
    },
  }),
});
