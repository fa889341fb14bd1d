import { z } from "zod";
import { getBundle, setBundleItems } from "../bundles/manage-bundle.ts";
import { bundleSchema, setBundleItemsInputSchema, type SetBundleItemsInput } from "../bundles/schemas.ts";
import { productParamsSchema } from "../marketplace/schemas.ts";
import { formatPrice } from "../pricing.ts";
import { operation, type Operation } from "./define.ts";

const BUNDLE_RULES =
  "A bundle is one of your products (sold once, at its own price) made of 2–20 other listed products of yours, sold once, in its currency; buying it issues one license per included product, each with that product's machines × the seats bought, and a full refund of the bundle's order ends them all. With prorate, a buyer who already holds active licenses for some items pays the bundle price × (list prices of the items not held ÷ list prices of all items), rounded half up and never under the smallest card payment, and gets licenses only for the others.";

/** The seller's bundles: which products a product includes, and whether buyers who own some of them pay less. */
export const BUNDLES: Operation[] = [
  operation({
    id: "getBundleItems",
    summary: "A product's bundle",
    description: `The products one of your products includes as a bundle, in order, with their status and list prices (none for an ordinary product). ${BUNDLE_RULES}`,
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/products/{id}/bundle" },
    input: { params: productParamsSchema },
    output: z.object({ bundle: bundleSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ bundle: await getBundle(c.seller.developer.id, p.id) }),
  }),
  operation({
    id: "setBundleItems",
    summary: "Make a product a bundle",
    description: `Replaces the products one of your products includes (\`product_ids\`, in the order its page lists them) and the \`prorate\` choice; an empty list makes it an ordinary product again. ${BUNDLE_RULES} Refusals, before anything changes: 404 \`product_not_found\` (the bundle), 404 \`bundle_item_not_found\` (not a product of yours), 409 \`bundle_item_unavailable\` (not listed), 400 \`bundle_too_small\` (one item), \`bundle_includes_itself\`, \`bundle_nested\` (a bundle inside a bundle), \`bundle_currency_mismatch\`, \`bundle_item_not_one_time\`, \`bundle_pricing_not_supported\` (the product itself is a subscription or an updates plan). Each refusal about one item names it in \`product_id\`.`,
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PUT", path: "/api/v1/products/{id}/bundle" },
    input: { params: productParamsSchema, body: setBundleItemsInputSchema },
    output: z.object({ bundle: bundleSchema }),
    errors: [401, 403, 404, 409],
    idempotencyExempt: "It replaces the whole list with the one sent: a retry sets the same items again and changes nothing more.",
    handler: async (i, c) => {
      const { id, ...body } = i;
      return { bundle: await setBundleItems(c.seller.developer.id, id, body) };
    },
    tools: [
      {
        name: "seller_set_bundle_items",
        title: "Make a product a bundle",
        layer: 6,
        description: `Makes one of your products (bundle_id) a bundle of other products of yours: product_ids (2–20, in display order; an empty list makes it an ordinary product again) and prorate (true: buyers who already hold some items pay less and get licenses only for the others). The bundle sells at the product's own price. ${BUNDLE_RULES} Refused items are named (bundle_item_not_found, bundle_item_unavailable, bundle_nested, bundle_currency_mismatch, bundle_item_not_one_time; bundle_too_small for one item). Find product ids with seller_list_products.`,
        args: z.object({
          bundle_id: productParamsSchema.shape.id.describe("The product of yours to make a bundle (it keeps its own price)"),
          ...setBundleItemsInputSchema.shape,
        }),
        toInput: ({ bundle_id, ...rest }) => ({ id: bundle_id as string, ...(rest as SetBundleItemsInput) }),
        text: ({ bundle: b }) =>
          b.is_bundle
            ? `${b.product_id} is a bundle at ${formatPrice(b.price_cents, b.currency)} of ${b.items.length} products (${formatPrice(b.list_total_cents, b.currency)} apart): ${b.items.map((i) => `${i.name} (${i.product_id})`).join(", ")}; prorate ${b.prorate ? "on" : "off"}.`
            : `${b.product_id} is an ordinary product (no bundle).`,
      },
    ],
  }),
];
