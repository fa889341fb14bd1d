import { z } from "zod";
import {
  addEmbedOrigin,
  EMBED_VERIFICATION_PATH,
  embedOriginInputSchema,
  embedOriginParamsSchema,
  embedOriginSchema,
  type EmbedOriginView,
  listEmbedOrigins,
  MAX_EMBED_ORIGINS,
  removeEmbedOrigin,
  verifyEmbedOrigin,
} from "../embed/origins.ts";
import { RULES } from "../http/rate-limit.ts";
import { operation, type Operation } from "./define.ts";

const ORIGIN_RULES =
  "An origin is scheme, host and optional port (`https://shop.example.com`, lower-cased, no path): https, or plain http for a loopback or private host only where the operator set WEBHOOK_ALLOW_PRIVATE=on. Anything else is 400 `embed_origin_invalid`.";

const VERIFY_STEPS = `Publish the origin's \`token\` as the only line of a text file at \`<origin>${EMBED_VERIFICATION_PATH}\`, then call verifyEmbedOrigin.`;

const originText = (o: EmbedOriginView) =>
  o.status === "verified"
    ? `${o.origin} is verified (${o.verified_at ?? ""}): the buy button's checkout may be framed there.`
    : `${o.origin} (${o.id}) is ${o.status}${o.last_error ? ` (${o.last_error})` : ""}. To verify it, serve a text file at ${o.verification_url} whose only line is ${o.token}, then call seller_verify_embed_origin with id "${o.id}".`;

/**
 * The seller's own websites for the buy button: each origin is added, proven by a file at a well-known path on it,
 * and only then allowed to frame the checkout. Another seller's origin is a 404.
 */
export const EMBED: Operation[] = [
  operation({
    id: "listEmbedOrigins",
    summary: "Your buy-button origins",
    description: "The sites that may show your buy button's checkout overlay, with their verification state and token.",
    tag: "Buy button",
    auth: "seller",
    sellerScope: "products",
    http: { method: "GET", path: "/api/v1/embed-origins" },
    output: z.object({ origins: z.array(embedOriginSchema) }),
    errors: [401, 403],
    handler: async (_i, c) => ({ origins: await listEmbedOrigins(c.seller.developer.id) }),
  }),
  operation({
    id: "addEmbedOrigin",
    summary: "Add a buy-button origin",
    description: `Adds a site of yours, pending until verified. ${ORIGIN_RULES} ${VERIFY_STEPS} The same origin twice is 409 \`embed_origin_exists\`; at most ${MAX_EMBED_ORIGINS} origins (409 \`embed_origin_limit\`).`,
    tag: "Buy button",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/embed-origins", status: 201 },
    input: { body: embedOriginInputSchema },
    output: z.object({ origin: embedOriginSchema }),
    errors: [401, 403, 409],
    handler: async (b, c) => ({ origin: await addEmbedOrigin(c.seller.developer.id, b) }),
    tools: [
      {
        name: "seller_add_embed_origin",
        title: "Add a site for the buy button",
        layer: 6,
        description: `Adds one of your websites as a place where the buy button's checkout overlay may appear. It starts pending: publish the returned token at <origin>${EMBED_VERIFICATION_PATH} and call seller_verify_embed_origin. ${ORIGIN_RULES}`,
        text: (o) => originText(o.origin),
      },
    ],
  }),
  operation({
    id: "verifyEmbedOrigin",
    summary: "Verify a buy-button origin",
    description: `Fetches \`<origin>${EMBED_VERIFICATION_PATH}\` (5 s, at most 4 KiB, no redirect to another origin, under the webhook address rules: private, loopback and link-local addresses only with WEBHOOK_ALLOW_PRIVATE=on) and compares its text, trimmed, with the origin's token. A match marks it verified; anything else marks it failed (a verified origin too, which then stops framing the checkout) and answers 422 \`embed_origin_unverified\` naming the reason, also kept as \`last_error\`: \`not_found\`, \`mismatch\`, \`unreachable\`, \`blocked_address\` or \`too_large\`. Limited per seller with webhook test events (RATE_LIMIT_WEBHOOK_SEND_PER_MIN).`,
    tag: "Buy button",
    auth: "seller",
    sellerScope: "products",
    http: { method: "POST", path: "/api/v1/embed-origins/{id}/verify" },
    idempotencyExempt: "Checking again fetches the file again and records what it finds: a retry changes nothing a first call would not.",
    callerLimits: (_p, c) => [[RULES.webhookSend, c.seller.developer.id]],
    input: { params: embedOriginParamsSchema },
    output: z.object({ origin: embedOriginSchema }),
    errors: [401, 403, 404, 422, 429],
    handler: async (p, c) => ({ origin: await verifyEmbedOrigin(c.seller.developer.id, p.id) }),
    tools: [
      {
        name: "seller_verify_embed_origin",
        title: "Verify a site for the buy button",
        layer: 6,
        description: `Checks that the site added with seller_add_embed_origin serves its token at <origin>${EMBED_VERIFICATION_PATH}. Verified: the buy button's checkout may be framed there. Otherwise the reason (not_found, mismatch, unreachable, blocked_address, too_large) comes back as embed_origin_unverified.`,
        text: (o) => originText(o.origin),
      },
    ],
  }),
  operation({
    id: "removeEmbedOrigin",
    summary: "Remove a buy-button origin",
    description: "From the next request on, the checkout can no longer be framed there.",
    tag: "Buy button",
    auth: "seller",
    sellerScope: "products",
    http: { method: "DELETE", path: "/api/v1/embed-origins/{id}" },
    input: { params: embedOriginParamsSchema },
    output: z.object({ deleted: z.literal(true) }),
    errors: [401, 403, 404],
    handler: async (p, c) => {
      await removeEmbedOrigin(c.seller.developer.id, p.id);
      return { deleted: true as const };
    },
  }),
];
