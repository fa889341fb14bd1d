import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { platformFeeCents } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";
import { paymentProvider } from "../payments/provider.ts";
import type { CreateCheckoutRequest } from "./schemas.ts";
import { newSessionId } from "./session-id.ts";

/** Checkout sessions stay open this long (Stripe allows at most 24 h). */
const CHECKOUT_TTL_MS = 23 * 3600_000;

/**
 * Opens a checkout session for one product: records the order (amount, currency, the 5 % platform fee, the agent
 * for attribution) and asks the payment provider for a hosted checkout. Only listed products can be bought.
 */
export async function createCheckout(input: CreateCheckoutRequest, now = new Date()): Promise<{ url: string; session_id: string }> {
  const db = getDb();
  const product = await db.product.findFirst({
    where: { id: input.product_id, status: "active" },
    select: { id: true, name: true, tagline: true, iconUrl: true, priceCents: true, currency: true, pluginId: true },
  });
  if (!product) throw notFound("product", `No listed product has the id "${input.product_id}"; unlisted products cannot be bought.`);

  const provider = paymentProvider();
  const order = await db.order.create({
    data: {
      id: newSessionId(),
      productId: product.id,
      buyerEmail: input.buyer_email,
      agentId: input.agent_id ?? null,
      provider: provider.name,
      subtotalCents: product.priceCents,
      amountCents: product.priceCents,
      feeCents: platformFeeCents(product.priceCents),
      currency: product.currency,
      status: "open",
      expiresAt: new Date(now.getTime() + CHECKOUT_TTL_MS),
    },
  });

  let session: { url: string; providerSessionId: string | null };
  try {
    session = await provider.createSession({
      orderId: order.id,
      productName: product.name,
      description: product.tagline,
      imageUrl: absoluteUrl(product.iconUrl),
      amountCents: order.amountCents,
      currency: order.currency,
      buyerEmail: order.buyerEmail,
      expiresAt: order.expiresAt,
      metadata: { product_id: product.id, plugin_id: product.pluginId, ...(order.agentId ? { agent_id: order.agentId } : {}) },
    });
  } catch (error) {
    console.error(`checkout ${order.id}: the payment provider refused or did not answer:`, (error as Error).message);
    await db.order.update({ where: { id: order.id }, data: { status: "failed" } });
    throw new AppError("payment_provider_unavailable", 502, "The payment provider could not open a checkout. Please retry in a moment.");
  }
  await db.order.update({ where: { id: order.id }, data: { checkoutUrl: session.url, providerSessionId: session.providerSessionId } });
  return { url: session.url, session_id: order.id };
}
