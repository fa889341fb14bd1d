import { z } from "zod";
import { originAllowed, readCookie } from "../auth/cookies.ts";
import { SESSION_COOKIE, sessionFromToken } from "../auth/sign-in.ts";
import { getCheckoutStatus } from "../checkout/get-checkout.ts";
import { AppError } from "../http/errors.ts";
import { RULES } from "../http/rate-limit.ts";
import { formatPrice } from "../pricing.ts";
import { createUpgradeCheckout } from "../upgrades/checkout-upgrade.ts";
import { createUpgradeOffer, listUpgradeOffers, updateUpgradeOffer } from "../upgrades/manage-offers.ts";
import { quoteUpgrade, type UpgradeSource, type UpgradeTarget } from "../upgrades/price-upgrade.ts";
import {
  createUpgradeOfferInputSchema,
  updateUpgradeOfferInputSchema,
  upgradeCheckoutRequestSchema,
  upgradeOfferParamsSchema,
  upgradeOfferSchema,
  upgradeQuoteSchema,
  upgradeRequestSchema,
  type UpgradeOfferOut,
} from "../upgrades/schemas.ts";
import { absoluteUrl } from "../urls.ts";
import type { CallContext } from "./define.ts";
import { operation, type Operation } from "./define.ts";

/** One offer as a model reads it. */
function offerText(o: UpgradeOfferOut): string {
  const price =
    o.pricing === "fixed" ? `${formatPrice(o.price_cents ?? 0, o.to_product.currency)} a seat` : "the difference between the prices, per seat";
  return `Upgrade ${o.id}${o.active ? "" : " (turned off)"}: ${o.from_product.name} → ${o.to_product.name} for ${price}; the old license is ${o.retire_source ? "retired" : "kept"} once paid; ${o.paid_upgrades} sold.`;
}

/**
 * Who holds the license the call names. A key proves it by itself; a license id is the signed-in buyer's (My
 * licenses), so it needs the buyer's session, whose writes must come from our own pages, as every buyer operation's.
 */
async function sourceOf(
  b: { license_key?: string | undefined; license_id?: string | undefined },
  ctx: CallContext,
  write: boolean,
): Promise<UpgradeSource> {
  if (b.license_key !== undefined) return { key: b.license_key };
  const session = await sessionFromToken(readCookie(ctx.headers.get("cookie"), SESSION_COOKIE.buyer), "buyer");
  if (!session) throw new AppError("unauthorized", 401, "Sign in to My licenses to name a license by its id, or send its license_key.");
  if (write && !originAllowed(ctx.headers, ctx.origin)) throw new AppError("cross_site_request", 403, "Cross-site requests are refused.");
  return { licenseId: b.license_id ?? "", buyerEmail: session.email.toLowerCase() };
}

const targetOf = (b: { offer_id?: string | undefined; to_product_id?: string | undefined }): UpgradeTarget =>
  b.offer_id !== undefined ? { offerId: b.offer_id } : { toProductId: b.to_product_id ?? "" };

const REFUSALS =
  "Refusals: a license you do not hold (an unknown key, another buyer's id) is 404 `license_not_found`; no active offer from its product is 404 `upgrade_not_offered`; a license not in force (revoked, refunded, disputed, retired by an upgrade, expired, a trial or a subscription's) is 409 `license_not_upgradable`; one already upgraded by a paid order 409 `license_already_upgraded`; a price under 0.50 of the currency 400 `amount_below_minimum`.";

/**
 * Upgrades and cross-grades: a seller offers buyers of one product (or edition) another at a set price per seat or
 * for the difference; the buyer proves the license with its key or by signing in, and buys through the one checkout.
 */
export const UPGRADES: Operation[] = [
  operation({
    id: "listUpgradeOffers",
    summary: "Your upgrade offers",
    description:
      "Your upgrade offers, newest first: from which product to which, how priced, whether the old license is retired, how many were sold.",
    tag: "Upgrades",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/upgrade-offers" },
    output: z.object({ offers: z.array(upgradeOfferSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ offers: await listUpgradeOffers(c.seller.developer.id) }),
  }),
  operation({
    id: "createUpgradeOffer",
    summary: "Offer an upgrade",
    description:
      'Offers buyers of `from_product_id` an upgrade to `to_product_id` (both yours: 404 `product_not_found` otherwise; different: 400 `upgrade_same_product`; in one currency: 400 `upgrade_currency_mismatch`; neither a subscription, 400 `upgrade_subscription_not_supported`, nor a bundle, 400 `upgrade_bundle_not_supported`). `pricing` "fixed" charges `price_cents` (minor units of the target\'s currency) per seat; "difference" charges the target\'s price less what the buyer paid per seat for the license upgraded from (never below 0). Either way the buyer keeps the seats they had, and checkout\'s minimum charge applies. `retire_source` (default true): the old license stops working once the upgrade is paid (validation answers `UPGRADED`, its machines are released); a full refund of the upgrade brings it back. One offer per pair: 409 `upgrade_offer_exists`.',
    tag: "Upgrades",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/upgrade-offers", status: 201 },
    input: { body: createUpgradeOfferInputSchema },
    output: z.object({ offer: upgradeOfferSchema }),
    errors: [401, 403, 404, 409],
    handler: async (b, c) => ({ offer: await createUpgradeOffer(c.seller.developer.id, b) }),
    tools: [
      {
        name: "seller_create_upgrade_offer",
        title: "Offer an upgrade between two of your products",
        layer: 6,
        description:
          'Offers buyers of one of your products (from_product_id, e.g. a Standard edition) an upgrade to another (to_product_id, e.g. Pro), in the same currency. pricing "fixed" with price_cents (minor units per seat), or "difference" (the target\'s price less what the buyer paid, per seat). retire_source (default true) retires the old license once the upgrade is paid; false lets the buyer keep both. Subscriptions and bundles cannot be upgraded from or to. One offer per pair (upgrade_offer_exists).',
        args: createUpgradeOfferInputSchema,
        text: ({ offer }) => `Created. ${offerText(offer)}`,
      },
    ],
  }),
  operation({
    id: "updateUpgradeOffer",
    summary: "Change an upgrade offer",
    description:
      'Turns one of your offers on or off (`active`), changes a "fixed" offer\'s `price_cents` (a "difference" offer has none: 400 `upgrade_price_not_fixed`) or whether it retires the old license. Checkouts already open keep their price; the retirement follows the offer as it stands when the payment arrives. Another seller\'s offer is 404.',
    tag: "Upgrades",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PATCH", path: "/api/v1/upgrade-offers/{id}" },
    input: { params: upgradeOfferParamsSchema, body: updateUpgradeOfferInputSchema },
    output: z.object({ offer: upgradeOfferSchema }),
    errors: [401, 403, 404],
    handler: async (i, c) => {
      const { id, ...change } = i;
      return { offer: await updateUpgradeOffer(c.seller.developer.id, id, change) };
    },
  }),
  operation({
    id: "quoteUpgrade",
    summary: "Price an upgrade",
    description: `What upgrading one license would cost, to the cent, without opening a checkout: name the license by \`license_key\` (holding the key proves it is yours) or by \`license_id\` (signed in to My licenses), and the upgrade by \`offer_id\` or \`to_product_id\`. The new license keeps the old one's seats. ${REFUSALS}`,
    tag: "Upgrades",
    auth: "public",
    readOnly: true,
    http: { method: "POST", path: "/api/upgrades/quote" },
    input: { body: upgradeRequestSchema },
    output: upgradeQuoteSchema,
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [401, 404, 409, 429],
    handler: async (b, c) => quoteUpgrade(await sourceOf(b, c, false), targetOf(b)),
  }),
  operation({
    id: "createUpgradeCheckout",
    summary: "Buy an upgrade",
    description: `Opens the checkout of an upgrade, the same hosted checkout as any purchase (\`url\` to pay, \`status_url\` for the outcome), priced as quoteUpgrade prices it. Once paid, one new license of the target is issued (e-mailed to \`buyer_email\`, by default the old license's address) and the old license is retired or kept as the offer says; a full refund of the upgrade ends the new license and brings the old one back. Optional \`expected_amount_cents\`: the amount the buyer confirmed; a price that differs now is 409 \`amount_changed\` and nothing is opened. Send an \`Idempotency-Key\` header so a retry returns the first checkout. ${REFUSALS}`,
    tag: "Upgrades",
    auth: "public",
    http: { method: "POST", path: "/api/upgrades/checkout" },
    idempotency: "optional",
    input: { body: upgradeCheckoutRequestSchema },
    output: z.object({
      url: z.url().describe("Open this URL to pay"),
      session_id: z.string(),
      status_url: z.url().describe("GET it to learn whether the buyer paid and where the key was sent"),
      expires_at: z.iso.datetime(),
      amount_cents: z.int().describe("What the upgrade charges before tax"),
      currency: z.string(),
      offer_id: z.string(),
      from_license_id: z.string(),
    }),
    limits: (_b, c) => [[RULES.checkout, c.client]],
    errors: [401, 403, 404, 409, 429, 502, 503],
    handler: async (b, c) => {
      const started = await createUpgradeCheckout(await sourceOf(b, c, true), targetOf(b), b.buyer_email, new Date(), b.expected_amount_cents);
      const status = await getCheckoutStatus(started.session_id);
      return { ...started, status_url: absoluteUrl(`/api/checkout/${started.session_id}`), expires_at: status.expires_at };
    },
  }),
];
