import type { Db } from "../db.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** ACP PaymentData as the session code hands it over: the credential's token and the provider it is for. */
interface AcpPaymentData {
  token: string;
  provider: string;
  billing_address?: unknown;
}

export interface PreparedPayment {
  provider: "test" | "stripe";
  /** Stripe PaymentIntent id, or "test_pay_<delegated id>": the order keeps it (refunds and disputes find it by it). */
  providerPaymentId: string;
  /**
   * Inside the fulfilment transaction: makes the payment final. Test: marks the vault token used with a conditional
   * update, so of racing completes exactly one commits (the others throw 409 payment_token_used and roll back).
   */
  commit(tx: Tx, orderId: string): Promise<void>;
  /** The fulfilment failed after prepare: undo what can be undone (Stripe: refund the PaymentIntent). Never throws. */
  abort(reason: string): Promise<void>;
}

export interface PaymentRequest {
  checkoutSessionId: string;
  platformId: string | null;
  orderId: string;
  /** What must be charged, in minor units of `currency`. */
  amountCents: number;
  currency: string;
  buyerEmail: string;
  payment: AcpPaymentData;
  /** A Stripe Connect destination charge: the seller's account and the platform's fee; null for a plain charge. */
  destination: { accountId: string; applicationFeeCents: number } | null;
  metadata: Record<string, string>;
}
