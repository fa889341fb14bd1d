import Stripe from "stripe";
import { env } from "../env.ts";

let cached: { key: string; base: string; client: Stripe } | undefined;

/**
 * The Stripe SDK client. STRIPE_API_BASE points it at another API host (a local stand-in in tests, or a proxy);
 * by default it talks to Stripe.
 */
export function stripeClient(): Stripe {
  const key = env().STRIPE_SECRET_KEY;
  if (!key) throw new Error("STRIPE_SECRET_KEY is not set");
  const base = env().STRIPE_API_BASE ?? "";
  if (cached?.key === key && cached.base === base) return cached.client;
  const config: ConstructorParameters<typeof Stripe>[1] = { maxNetworkRetries: 2, timeout: 20_000, telemetry: false };
  if (base) {
    const u = new URL(base);
    config.host = u.hostname;
    config.port = u.port || (u.protocol === "https:" ? 443 : 80);
    config.protocol = u.protocol.replace(":", "") as "http" | "https";
  }
  cached = { key, base, client: new Stripe(key, config) };
  return cached.client;
}
