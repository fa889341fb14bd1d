import { notFound } from "next/navigation";
import { cache } from "react";
import { getCheckoutView, type CheckoutView } from "@/lib/checkout/get-checkout";
import { sessionIdSchema } from "@/lib/checkout/schemas";
import { AppError } from "@/lib/http/errors";

export type { CheckoutView };

export type ClosedStatus = "expired" | "cancelled" | "failed";

export function isClosed(status: CheckoutView["status"]): status is ClosedStatus {
  return status === "expired" || status === "cancelled" || status === "failed";
}

function isNotFound(error: unknown): boolean {
  return error instanceof AppError ? error.status === 404 : (error as { status?: unknown } | null)?.status === 404;
}

/**
 * The session's view model, or null for a malformed or unknown id. One database read per request, shared by
 * generateMetadata (which must not throw notFound()) and the page.
 */
export const findCheckout = cache(async (sessionId: string): Promise<CheckoutView | null> => {
  if (!sessionIdSchema.safeParse(sessionId).success) return null;
  try {
    return await getCheckoutView(sessionId);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
});

/** The session's view model; a malformed or unknown id renders the 404 page. */
export async function loadCheckout(sessionId: string): Promise<CheckoutView> {
  return (await findCheckout(sessionId)) ?? notFound();
}

/** Site-relative links: the pages stay on the host the buyer is using. */
export const checkoutPaths = {
  checkout: (id: string) => `/checkout/${encodeURIComponent(id)}`,
  pay: (id: string) => `/checkout/${encodeURIComponent(id)}/pay`,
  cancel: (id: string) => `/checkout/${encodeURIComponent(id)}/cancel`,
  success: (id: string) => `/checkout/${encodeURIComponent(id)}/success`,
  product: (productId: string) => `/products/${encodeURIComponent(productId)}`,
  /** The product's Buy box (the buyer's e-mail address stays out of the URL: it ends up in history and logs). */
  buyAgain: (productId: string) => `/products/${encodeURIComponent(productId)}#buy`,
} as const;
