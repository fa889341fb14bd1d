import { z } from "zod";
import { createSellerToken, createTokenInputSchema, listSellerTokens, revokeSellerToken, tokenSchema } from "../seller-api/tokens.ts";
import { operation, type Operation } from "./define.ts";

const tokenParamsSchema = z.object({ id: z.string().regex(/^[a-z0-9]{8,40}$/, "must be a token id") });

/**
 * The seller's API tokens. Managing them needs the dashboard's session (`sellerScope: "session"`): a token that could
 * mint tokens would outlive its own revocation, so a leaked one can do no more than its scopes until it is revoked.
 * Creation takes an Idempotency-Key like every creating POST (the dashboard's form sends one): a retry with the same key
 * is answered the same token, which the idempotency record therefore holds for its 24 hours.
 */
export const SELLER_TOKENS: Operation[] = [
  operation({
    id: "listSellerTokens",
    summary: "Your API tokens",
    description:
      "Your seller API tokens, newest first, revoked ones included: name, first characters, scopes, who created it and when, expiry, last use (time and client address, written at most once a minute) and status. The tokens themselves are never shown again.",
    tag: "API tokens",
    auth: "seller",
    sellerScope: "session",
    http: { method: "GET", path: "/api/v1/tokens" },
    output: z.object({ tokens: z.array(tokenSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ tokens: await listSellerTokens(c.seller.developer.id) }),
  }),
  operation({
    id: "createSellerToken",
    summary: "Create an API token",
    description:
      "A token for your CI, scripts or AI agent: `Authorization: Bearer ilmsk_…` on the seller API (/api/v1) and on MCP. Scopes: `read` reads everything; `products` (with coupons), `releases`, `licenses`, `orders` (refunds) and `webhooks` each write their area. The answer carries `token` once; only its SHA-256 is stored. At most 50 unrevoked tokens per seller (409 `too_many_tokens`).",
    tag: "API tokens",
    auth: "seller",
    sellerScope: "session",
    http: { method: "POST", path: "/api/v1/tokens", status: 201 },
    input: { body: createTokenInputSchema },
    output: z.object({ token: tokenSchema.extend({ token: z.string().describe("The Bearer token; shown in this answer only") }) }),
    errors: [401, 403, 409],
    handler: async (b, c) => {
      const seller = c.seller;
      return { token: await createSellerToken(seller.developer.id, seller.email, b) };
    },
  }),
  operation({
    id: "revokeSellerToken",
    summary: "Revoke an API token",
    description: "The token stops working at once on every instance (401 `token_revoked`). Idempotent; another seller's token is a 404.",
    tag: "API tokens",
    auth: "seller",
    sellerScope: "session",
    http: { method: "POST", path: "/api/v1/tokens/{id}/revoke" },
    input: { params: tokenParamsSchema },
    output: z.object({ token: tokenSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ token: await revokeSellerToken(c.seller.developer.id, p.id) }),
  }),
];
