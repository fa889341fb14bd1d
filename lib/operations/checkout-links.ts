import { z } from "zod";
import { getCheckoutStatus } from "../checkout/get-checkout.ts";
import { RULES } from "../http/rate-limit.ts";
import { createCheckoutLink, listCheckoutLinks, startCheckoutLink, updateCheckoutLink, viewCheckoutLink } from "../links/manage-links.ts";
import {
  checkoutLinkParamsSchema,
  checkoutLinkSchema,
  createCheckoutLinkInputSchema,
  publicCheckoutLinkSchema,
  publicLinkParamsSchema,
  startCheckoutLinkBodySchema,
  updateCheckoutLinkInputSchema,
  type CheckoutLinkOut,
} from "../links/schemas.ts";
import { absoluteUrl } from "../urls.ts";
import { operation, type Operation } from "./define.ts";

/** One link as a model reads it. */
function linkText(l: CheckoutLinkOut): string {
  const presets = [
    `${l.quantity} seat${l.quantity === 1 ? "" : "s"}`,
    ...(l.coupon_code ? [`coupon ${l.coupon_code}`] : []),
    ...(l.interval ? [`billed each ${l.interval}`] : []),
    ...(l.expires_at ? [`until ${l.expires_at}`] : []),
    ...(l.max_uses !== null ? [`at most ${l.max_uses} uses`] : []),
  ].join(", ");
  return `${l.name} (${l.id}${l.active ? "" : ", turned off"}): ${l.url} sells ${l.product_name} (${presets}); ${l.visits} visits, ${l.checkouts} checkouts, ${l.sales} sales, ${l.uses} uses held.`;
}

const startedSchema = z.object({
  url: z.url().describe("Open this URL to pay"),
  session_id: z.string(),
  status_url: z.url().describe("GET it to learn whether the buyer paid and where the key was sent"),
  expires_at: z.iso.datetime(),
  amount_cents: z.int(),
  currency: z.string(),
});

/**
 * Checkout links: a seller's named addresses that each sell one product with preset seats, coupon and interval,
 * optionally expiring and limited in uses. Sellers make, list and change them (dashboard, seller API, MCP); anyone
 * reads one and opens its checkout, the same checkout as the product page's.
 */
export const CHECKOUT_LINKS: Operation[] = [
  operation({
    id: "listCheckoutLinks",
    summary: "Your checkout links",
    description:
      "Your checkout links, newest first, each with its address (`url`), presets and counters: visits, checkouts opened, sales, uses held.",
    tag: "Checkout links",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/checkout-links" },
    output: z.object({ links: z.array(checkoutLinkSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ links: await listCheckoutLinks(c.seller.developer.id) }),
    tools: [
      {
        name: "seller_list_checkout_links",
        title: "List your checkout links",
        layer: 6,
        description:
          "Your checkout links, newest first: each one's shareable url, product, preset seats, coupon and interval, expiry, use limit, and its counters (visits, checkouts opened, sales).",
        text: ({ links }) => (links.length === 0 ? "You have no checkout links yet." : links.map(linkText).join("\n")),
      },
    ],
  }),
  operation({
    id: "createCheckoutLink",
    summary: "Create a checkout link",
    description:
      "A named address that sells one of your products (listed or unlisted) with preset seats (`quantity`, per-seat and per-user products only, else 400 `quantity_not_allowed`), one of your coupon codes (400 `coupon_not_found` unless it is an active coupon of yours that applies to this product), a billing `interval` (subscription products only, else 400 `interval_not_offered`), an optional `expires_at` and `max_uses`. A product has one currency, so a link has none of its own. The slug is lower-case letters, digits and dashes, unique among your links (409 `link_slug_taken`); another seller's product is 404 `product_not_found`. Buyers open `url`; an expired link answers 410 `checkout_link_expired`, a used-up one 409 `checkout_link_used_up`, a turned-off one 404 `checkout_link_not_found`.",
    tag: "Checkout links",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/checkout-links", status: 201 },
    idempotency: "optional",
    input: { body: createCheckoutLinkInputSchema },
    output: z.object({ link: checkoutLinkSchema }),
    errors: [401, 403, 404, 409],
    handler: async (b, c) => ({ link: await createCheckoutLink(c.seller.developer.id, b) }),
    tools: [
      {
        name: "seller_create_checkout_link",
        title: "Create a checkout link",
        layer: 6,
        description:
          "Makes a shareable link that sells one of your products with presets: product_id, name (yours only), slug (lower-case letters, digits, dashes; unique among your links), optional quantity (seats, per-seat and per-user products), coupon_code (an active coupon of yours for this product), interval (month or year, subscription products), expires_at (ISO 8601) and max_uses. Returns the link's url to share; its visits, checkouts and sales are counted.",
        args: createCheckoutLinkInputSchema,
        text: ({ link }) => `Created checkout link ${linkText(link)}`,
      },
    ],
  }),
  operation({
    id: "updateCheckoutLink",
    summary: "Change a checkout link",
    description:
      "Changes a link's name, `expires_at`, `max_uses` (null: unlimited) or whether it is `active` (false: buyers get 404 `checkout_link_not_found`). Its presets stay: a different price is a different link. Checkouts already open keep their price. Another seller's link is 404 `checkout_link_not_found`.",
    tag: "Checkout links",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PATCH", path: "/api/v1/checkout-links/{id}" },
    input: { params: checkoutLinkParamsSchema, body: updateCheckoutLinkInputSchema },
    output: z.object({ link: checkoutLinkSchema }),
    errors: [401, 403, 404],
    handler: async (i, c) => {
      const { id, ...changes } = i;
      return { link: await updateCheckoutLink(c.seller.developer.id, id, changes) };
    },
  }),
  operation({
    id: "viewCheckoutLink",
    summary: "A checkout link's offer",
    description:
      "What a checkout link sells: the product, its seller and the price of one purchase through it to the cent (the checkout's own quote: seats, coupon, interval, minimum charge). Each call counts one visit of the link. 404 `checkout_link_not_found` (unknown or turned off), 410 `checkout_link_expired`, 409 `checkout_link_used_up`; a product that can no longer be sold is 404 `product_not_found`, a preset coupon that lapsed 404 `coupon_not_found`.",
    tag: "Checkout links",
    auth: "public",
    http: { method: "GET", path: "/api/checkout-links/{developer_id}/{slug}" },
    input: { params: publicLinkParamsSchema },
    output: publicCheckoutLinkSchema,
    errors: [404, 409, 410],
    handler: (p) => viewCheckoutLink(p),
  }),
  operation({
    id: "startCheckoutLink",
    summary: "Open a checkout through a link",
    description:
      "Opens the hosted checkout a checkout link sells, the same as createCheckout with the link's seats, coupon and interval, for `buyer_email`; the checkout holds one of the link's uses until it is paid or closes unpaid. Refused as viewCheckoutLink is (404 `checkout_link_not_found`, 410 `checkout_link_expired`, 409 `checkout_link_used_up`), and as createCheckout is; a refused link opens no checkout. Send an `Idempotency-Key` so a retry returns the first checkout.",
    tag: "Checkout links",
    auth: "public",
    http: { method: "POST", path: "/api/checkout-links/{developer_id}/{slug}/checkout" },
    idempotency: "optional",
    input: { params: publicLinkParamsSchema, body: startCheckoutLinkBodySchema },
    output: startedSchema,
    // The same budget per client as the product page's Buy button and the checkout API.
    limits: (_i, c) => [[RULES.checkout, c.client]],
    errors: [404, 409, 410, 429, 502, 503],
    handler: async (i) => {
      const session = await startCheckoutLink({ developer_id: i.developer_id, slug: i.slug }, i.buyer_email);
      const status = await getCheckoutStatus(session.session_id);
      return {
        ...session,
        status_url: absoluteUrl(`/api/checkout/${session.session_id}`),
        expires_at: status.expires_at,
        amount_cents: status.amount_cents,
        currency: status.currency,
      };
    },
  }),
];
