import { z } from "zod";
import {
  createDeveloperProfile,
  developerProfileSchema,
  profileInputSchema,
  toDeveloperProfile,
  updateDeveloperProfile,
} from "../selling/developer-profile.ts";
import { createProduct, getSellerProduct, publishProduct, setProductStatus, updateProduct } from "../selling/products.ts";
import {
  listSellerProductsForApi,
  sellerProductCreateSchema,
  sellerProductInputSchema,
  sellerProductSchema,
  toSellerProduct,
} from "../selling/seller-product.ts";
import { imageFilesInputSchema, saveImageFiles } from "../selling/uploads.ts";
import { saleEmailsInputSchema, saleEmailsOutputSchema, setSaleEmails } from "../seller-mail/sale-emails.ts";
import { PRODUCT_STATUSES } from "../marketplace/constants.ts";
import { productParamsSchema } from "../marketplace/schemas.ts";
import { formatPrice } from "../pricing.ts";
import { operation, type HandlerContext } from "./define.ts";

/** The dashboard session's address, with or without a developer profile (see `sellerProfile`). */
const accountOf = (c: HandlerContext) => {
  const email = c.newSeller?.email ?? c.seller?.email;
  if (!email) throw new Error("seller operation ran without a seller");
  return email;
};

/** What createSellerProduct and updateSellerProduct say of images given by URL (lib/selling/uploads.ts, storeImagesByUrl). */
const IMAGES_BY_URL =
  "An icon_url or images entry given as an http(s) URL is fetched once, by the server, and stored as an uploaded image (the same checks as storeProductImages: PNG, JPEG, WebP or GIF by its bytes, at most 512 KiB, within your upload quota); the product keeps, and the answer shows, its /uploads/… path instead of the URL, so product pages load nothing from another site. The fetch follows at most 3 redirects and gives up after 10 s; addresses that are not public (localhost, private, link-local…) are refused as for webhooks. A URL that cannot be fetched is 400 `image_fetch_failed`; one that is no such image 415 `upload_type` (400 `upload_empty`); too large 413 `upload_too_large`; beyond the quota 413 `upload_quota_exceeded`: each names the field in `errors` (`icon_url`, `images.<i>`), and nothing is saved.";

/**
 * The seller's developer profile (the dashboard's welcome and profile pages; no REST route or tool: the dashboard's
 * session only), and the seller's own products over JSON, with the dashboard's session cookie; another seller's
 * product is a 404.
 */
export const SELLER = [
  operation({
    id: "createSellerProfile",
    summary: "Create your developer profile",
    description:
      "The first thing a newly signed-in seller does: the name buyers see (its address in the store is made from it), website, bio, and optionally the refund policy and support contact a paid listing needs. One per account: 409 `profile_exists`; 409 `profile_id_taken` when no free address is left for the name.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "session",
    // The caller has a session but no developer yet: this creates it.
    sellerProfile: "optional",
    readOnly: false,
    input: { body: profileInputSchema },
    output: z.object({ profile: developerProfileSchema }),
    errors: [401, 403, 409],
    handler: async (b, c) => ({ profile: toDeveloperProfile(await createDeveloperProfile(accountOf(c), b)) }),
  }),
  operation({
    id: "updateSellerProfile",
    summary: "Change your developer profile",
    description:
      "Name, website, bio, refund policy and support contact; a trust field left out keeps what is stored. While paid products of yours are listed, their refund policy and support contact stay filled: 409 `seller_profile_incomplete`, naming the fields.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "session",
    readOnly: false,
    input: { body: profileInputSchema },
    output: z.object({ profile: developerProfileSchema }),
    errors: [401, 403, 409],
    handler: async (b, c) => ({ profile: toDeveloperProfile(await updateDeveloperProfile(c.seller.developer.id, b)) }),
  }),
  operation({
    id: "setSellerSaleEmails",
    summary: "Choose how you hear of your sales",
    description:
      'Your e-mails about paid orders: "each" (one per order: product, amount, seats, the buyer\'s masked address, a link to the order), "daily" (one digest a day with sales, totals per currency, for the previous UTC day) or "off".',
    tag: "Seller",
    auth: "seller",
    sellerScope: "session",
    readOnly: false,
    input: { body: saleEmailsInputSchema },
    output: saleEmailsOutputSchema,
    errors: [401, 403],
    handler: async (b, c) => setSaleEmails(c.seller.developer.id, b.sale_emails),
  }),
  operation({
    id: "listSellerProducts",
    summary: "Your products",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/products" },
    output: z.object({ products: z.array(sellerProductSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ products: await listSellerProductsForApi(c.seller.developer.id) }),
    tools: [
      {
        name: "seller_list_products",
        title: "List your products",
        layer: 6,
        description:
          "Every product of yours, newest first, unlisted ones included: id, name, status, price (minor units and currency), seats, sales count. Use the product id with seller_publish_release, seller_create_coupon (product_ids) or seller_list_licenses.",
        text: (o) =>
          o.products.length
            ? o.products.map((p) => `${p.id}: ${p.name} [${p.status}] ${formatPrice(p.price_cents, p.currency)}, ${p.sales_count} sales`).join("\n")
            : "You have no products yet.",
      },
    ],
  }),
  operation({
    id: "createSellerProduct",
    summary: "Create a new product",
    description: `Creates a product under your developer profile; its id is made from the name. It starts as a draft (\`status\` "draft"), shown to no buyer until you publish it (publishSellerProduct); \`"publish": true\` publishes it in the same call, under the same checks (409 \`product_not_ready\` naming what is missing, and then nothing is created). ${IMAGES_BY_URL}`,
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/products", status: 201 },
    input: { body: sellerProductCreateSchema },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 409, 413, 415],
    handler: async ({ publish, ...b }, c) => ({ product: toSellerProduct(await createProduct(c.seller.developer.id, b, { publish })) }),
  }),
  operation({
    id: "publishSellerProduct",
    summary: "Publish one of your products",
    description:
      "Lists a draft (or relists an unlisted product) in the store, the API and checkout, once it has what a buyer needs: a name, a price, a description, an icon, a download URL or a published release with at least one file, and for a paid product the refund policy and support contact on your profile and a ready payout account. Anything the product lacks: 409 `product_not_ready`, each missing thing (the seller's among them) named in `errors`; when only the seller's prerequisites are missing, their own codes as for relisting (409 `seller_profile_incomplete`, `payout_account_required`). Publishing a listed product changes nothing. `warnings` names listed platforms no published release has a file for (\"No build for Linux yet\"). A suspended seller: 403 `seller_suspended`; a listing the operator holds: 409 `listing_held_by_operator`.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/products/{id}/publish" },
    input: { params: productParamsSchema },
    output: z.object({ product: sellerProductSchema, warnings: z.array(z.string()) }),
    errors: [401, 403, 404, 409],
    handler: async (p, c) => {
      const { product, warnings } = await publishProduct(c.seller.developer.id, p.id);
      return { product: toSellerProduct(product), warnings };
    },
    tools: [
      {
        name: "seller_publish_product",
        title: "Publish a product",
        layer: 6,
        description:
          "Publishes one of your draft or unlisted products (id from seller_list_products) so buyers can find and buy it. It needs a name, price, description, icon, and a download URL or a published release with a file; a paid product also needs your refund policy, support contact and a ready payout account. What is missing comes back as error product_not_ready with each item in errors. Publishing a listed product changes nothing.",
        text: (o) =>
          `${o.product.name} (${o.product.id}) is ${o.product.status === "active" ? "listed" : o.product.status}.${o.warnings.length ? ` Warnings: ${o.warnings.join("; ")}.` : ""}`,
      },
    ],
  }),
  operation({
    id: "getSellerProduct",
    summary: "One of your products",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/products/{id}" },
    input: { params: productParamsSchema },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ product: toSellerProduct(await getSellerProduct(c.seller.developer.id, p.id)) }),
  }),
  operation({
    id: "updateSellerProduct",
    summary: "Change one of your products",
    description: `Replaces the product's fields with these (the update policy, system requirements and demo links are kept when left out). ${IMAGES_BY_URL}`,
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PUT", path: "/api/v1/products/{id}" },
    input: { params: productParamsSchema, body: sellerProductInputSchema },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 404, 409, 413, 415],
    handler: async (i, c) => {
      const { id, ...body } = i;
      return { product: toSellerProduct(await updateProduct(c.seller.developer.id, id, body)) };
    },
  }),
  // The dashboard's product pages' own (no REST route or tool): the form's checks, its image files, the list buttons.
  operation({
    id: "setSellerProductStatus",
    summary: "Unlist or relist one of your products",
    description:
      "`unlisted`: hidden from the store, the API and checkout; existing licenses keep working. `active`: listed again, under the rules of a new listing (403 `seller_suspended`, 409 `payout_account_required` or `seller_profile_incomplete` for a paid one); a draft is published as by publishSellerProduct (409 `product_not_ready`). `draft`: back to a draft, hidden as when unlisted. A listing the operator holds is 409 `listing_held_by_operator`.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    readOnly: false,
    input: { params: productParamsSchema, body: z.object({ status: z.enum(PRODUCT_STATUSES) }) },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 404, 409],
    handler: async (i, c) => ({ product: toSellerProduct(await setProductStatus(c.seller.developer.id, i.id, i.status)) }),
  }),
  operation({
    id: "checkSellerProduct",
    summary: "Check a product without saving it",
    description:
      "Parses a product as createSellerProduct and updateSellerProduct take it: valid, or a 400 naming each field's problem. Nothing is saved. The dashboard's product form checks its fields so before it stores the image files chosen with them, so that a refused form leaves no file behind.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    readOnly: true,
    input: { body: sellerProductInputSchema },
    output: z.object({ valid: z.literal(true) }),
    errors: [401, 403],
    handler: () => ({ valid: true as const }),
  }),
  /*
   * Storing an uploaded image is a write of its own, before the product that uses it: the dashboard's product form
   * sends image files with its fields, while createSellerProduct and updateSellerProduct take JSON with the images'
   * addresses (as REST and MCP send them). So the form's action checks its fields (checkSellerProduct), stores the
   * files through this operation, then saves the product with the paths it answers. The input is the files
   * themselves (File objects, which only a server action's form carries; the body cap counts none of their bytes, so
   * the schema and lib/selling/uploads.ts hold each to MAX_UPLOAD_BYTES, and the seller's quota holds them all).
   * No idempotency key: a file's name is its content's hash, so storing it twice stores one file.
   */
  operation({
    id: "storeProductImages",
    summary: "Store image files for your products",
    description:
      "Stores PNG, JPEG, WebP or GIF images (by their bytes; at most 512 KiB each) for your products' icons and screenshots, within your upload quota, and answers their paths in the order given (/uploads/…), for icon_url and images. Files that are no such image are refused together (415 `upload_type`, 413 `upload_too_large`, 400 `upload_empty`, each named in `errors` as files.<i>), beyond the quota 413 `upload_quota_exceeded`; then none is stored. An image no product uses is deleted after an hour.",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    readOnly: false,
    input: { body: imageFilesInputSchema },
    output: z.object({ paths: z.array(z.string()) }),
    errors: [401, 403, 413, 415],
    handler: async (b, c) => ({ paths: await saveImageFiles(c.seller.developer.id, b.files) }),
  }),
];
