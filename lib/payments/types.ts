export interface HostedSessionRequest {
  orderId: string;
  productName: string;
  description: string;
  imageUrl: string;
  /** The product's list price for one seat. */
  unitAmountCents: number;
  quantity: number;
  /** Taken off by the coupon (couponCode); amountCents = unitAmountCents × quantity − discountCents. */
  discountCents: number;
  couponCode: string | null;
  /** What the provider must charge before tax: exactly the order's amount. */
  amountCents: number;
  currency: string;
  buyerEmail: string;
  expiresAt: Date;
  /** The seller's connected account for a destination charge, with the platform's fee; null: a plain charge. */
  destination: { accountId: string; applicationFeeCents: number } | null;
  /** Let the provider calculate and add tax (STRIPE_TAX=on). */
  automaticTax: boolean;
  metadata: Record<string, string>;
  /**
   * A subscription checkout: the price is per period (`unitAmountCents` a seat), the first charge after `trialDays`
   * free days when there are any, and the coupon's discount (`discountCents` a charge) lasts as its duration says.
   */
  subscription?: {
    interval: "month" | "year";
    trialDays: number;
    /** The coupon's discount on each charge it applies to; null: no coupon. */
    coupon: { discountCents: number; duration: "once" | "forever" | "repeating"; months: number | null } | null;
  } | null;
}

/** A payment processor's hosted checkout. Payment outcomes come back as events through applyPaymentEvent. */
export interface PaymentProvider {
  name: "test" | "stripe";
  createSession(req: HostedSessionRequest): Promise<{ url: string; providerSessionId: string | null }>;
}
