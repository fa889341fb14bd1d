import { z } from "zod";
import { createProduct, getSellerProduct, updateProduct } from "../dashboard/products.ts";
import { listSellerProductsForApi, sellerProductInputSchema, sellerProductSchema, toSellerProduct } from "../dashboard/seller-product.ts";
import { productParamsSchema } from "../marketplace/schemas.ts";
import { formatPrice } from "../pricing.ts";
import { operation } from "./define.ts";

const sellerOf = (c: { seller?: { developer: { id: string } } }) => {
  // The executor resolves `seller` auth before any handler runs; this only narrows the type.
  if (!c.seller) throw new Error("seller operation ran without a seller");
  return c.seller.developer.id;
};

/** The seller's own products over JSON, with the dashboard's session cookie; another seller's product is a 404. */
export const SELLER = [
  operation({
    id: "listSellerProducts",
    summary: "Your products",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/products" },
    output: z.object({ products: z.array(sellerProductSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ products: await listSellerProductsForApi(sellerOf(c)) }),
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
    summary: "List a new product",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/products", status: 201 },
    input: { body: sellerProductInputSchema },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 409],
    handler: async (b, c) => ({ product: toSellerProduct(await createProduct(sellerOf(c), b)) }),
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
    handler: async (p, c) => ({ product: toSellerProduct(await getSellerProduct(sellerOf(c), p.id)) }),
  }),
  operation({
    id: "updateSellerProduct",
    summary: "Change one of your products",
    tag: "Seller",
    auth: "seller",
    sellerScope: "products",
    http: { method: "PUT", path: "/api/v1/products/{id}" },
    input: { params: productParamsSchema, body: sellerProductInputSchema },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 404, 409],
    handler: async (i, c) => {
      const { id, ...body } = i;
      return { product: toSellerProduct(await updateProduct(sellerOf(c), id, body)) };
    },
  }),
];
