import { consumeSignIn, requestSignIn } from "@/lib/auth/sign-in";
import { createProduct } from "@/lib/selling/products";
import { getDb } from "@/lib/db";
import { productInputSchema } from "@/lib/marketplace/schemas";
import { createDeveloperProfile } from "@/lib/selling/developer-profile";
import { connectTestPayoutAccount } from "@/lib/payouts/test-account";

/** What a paid listing needs on its seller's profile (a refund policy and a support contact), for tests that sell. */
export const SELLER_TRUST = {
  refund_policy: "Full refund within 14 days of purchase; the license is revoked on refund.",
  support_email: "support@example.com",
} as const;

/**
 * A seller who may publish paid listings: the profile with a refund policy and a support contact, plus the built-in
 * test payout account (what a seller does on the Payouts page in test mode). Tests about selling use this; tests
 * about the publish gate itself do not.
 */
export async function sellingDeveloper(email: string, input: Parameters<typeof createDeveloperProfile>[1]) {
  const dev = await createDeveloperProfile(email, { ...SELLER_TRUST, ...input });
  await connectTestPayoutAccount(dev.id);
  return dev;
}

/** The dashboard session cookie of a seller, signed in the way a person does: the e-mailed link, consumed once. */
export const sellerCookie = (email: string): Promise<string> => sessionCookieOf(email, "seller");

/** The Cookie header of a buyer signed in to My licenses by the e-mailed link, as the browser would send it. */
export const buyerCookie = (email: string): Promise<string> => sessionCookieOf(email, "buyer");

async function sessionCookieOf(email: string, purpose: "buyer" | "seller"): Promise<string> {
  await requestSignIn({ email, purpose });
  const mail = await getDb().emailMessage.findFirstOrThrow({ where: { to: email, kind: "sign-in" }, orderBy: { createdAt: "desc" } });
  const session = await consumeSignIn(/token=([A-Za-z0-9_-]+)/.exec(mail.text)![1]!);
  return `${session.cookieName}=${session.cookieValue}`;
}

/** A valid product form for tests: a Linux desktop app with a demo icon; `fields` override any of it. */
export const testProductBody = (name: string, pluginId: string, fields: Record<string, unknown> = {}) => ({
  name,
  description: "A product these tests create, described at sufficient length.",
  plugin_id: pluginId,
  price_cents: 1500,
  category: "desktop-apps",
  max_machines: 2,
  seat_model: "per-machine",
  platforms: ["linux"],
  download_url: "https://example.com/download",
  icon_url: "/icons/tape-warmth.svg",
  ...fields,
});

/** Creates and publishes a product of the seller's from testProductBody (a new product is otherwise a draft). */
export const createTestProduct = (developerId: string, name: string, pluginId: string, fields: Record<string, unknown> = {}) =>
  createProduct(developerId, productInputSchema.parse(testProductBody(name, pluginId, fields)), { publish: true });
