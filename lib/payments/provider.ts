import { env } from "../env.ts";
import { stripeProvider } from "./stripe-provider.ts";
import { testProvider } from "./test-provider.ts";

interface HostedSessionRequest {
  orderId: string;
  productName: string;
  description: string;
  imageUrl: string;
  amountCents: number;
  currency: string;
  buyerEmail: string;
  expiresAt: Date;
  metadata: Record<string, string>;
}

/** A payment processor's hosted checkout. Payment outcomes come back as events through applyPaymentEvent. */
export interface PaymentProvider {
  name: "test" | "stripe";
  createSession(req: HostedSessionRequest): Promise<{ url: string; providerSessionId: string | null }>;
}

/** Stripe when STRIPE_SECRET_KEY is set; otherwise the built-in test mode, so a purchase works with no accounts. */
export function paymentProvider(): PaymentProvider {
  return env().STRIPE_SECRET_KEY ? stripeProvider() : testProvider;
}
