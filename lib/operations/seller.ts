import { z } from "zod";
import { createProduct, getSellerProduct, updateProduct } from "../dashboard/products.ts";
import { listSellerProductsForApi, sellerProductInputSchema, sellerProductSchema, toSellerProduct } from "../dashboard/seller-product.ts";
import { productParamsSchema } from "../marketplace/schemas.ts";
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
    http: { method: "GET", path: "/api/dashboard/products" },
    output: z.object({ products: z.array(sellerProductSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ products: await listSellerProductsForApi(sellerOf(c)) }),
  }),
  operation({
    id: "createSellerProduct",
    summary: "List a new product",
    tag: "Seller",
    auth: "seller",
    http: { method: "POST", path: "/api/dashboard/products", status: 201 },
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
    http: { method: "GET", path: "/api/dashboard/products/{id}" },
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
    http: { method: "PUT", path: "/api/dashboard/products/{id}" },
    input: { params: productParamsSchema, body: sellerProductInputSchema },
    output: z.object({ product: sellerProductSchema }),
    errors: [401, 403, 404, 409],
    handler: async (i, c) => {
      const { id, ...body } = i;
      return { product: toSellerProduct(await updateProduct(sellerOf(c), id, body)) };
    },
  }),
];
