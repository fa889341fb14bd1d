import { z } from "zod";
import { buyerReleaseMachine, buyerRestoreMachine } from "../buyer/licenses.ts";
import { notFound } from "../http/errors.ts";
import { CONTROL_CHARACTER_MESSAGE, singleLineText } from "../http/input.ts";
import { UNDO_WINDOW_MS } from "../licensing/restore-machine.ts";
import { reviewContentSchema, submitReviewResponseSchema } from "../reviews/schemas.ts";
import { submitReview } from "../reviews/submit-review.ts";
import { billingDetailsResultSchema, billingDetailsSchema, setBillingDetails } from "../invoices/billing-details.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { acceptTransfer, cancelTransfer, startTransfer } from "../transfers/transfer-license.ts";
import { operation, type Operation } from "./define.ts";

const id = (what: string) => z.string().trim().min(1).max(64).refine(singleLineText, CONTROL_CHARACTER_MESSAGE).describe(what);
const transferViewSchema = z.object({
  transfer_id: z.string(),
  license_id: z.string(),
  to_email: z.string(),
  status: z.string(),
  expires_at: z.string(),
});
const machineParams = z.object({ id: id("The license id"), machine_id: id("The machine's id (an activation of that license)") });

/**
 * What a buyer signed in to My licenses does there: release one of their machines, undo that, review what they bought.
 * Only the session's e-mail decides whose license a call may touch: the ids merely name one of theirs, and anything
 * else (another buyer's license, a machine not on it) is a 404. No REST route and no MCP tool: these are the My
 * licenses page's own (its server actions run them through execute(), with the default per-buyer write limit and the
 * session's same-origin check). Holders of a key review over REST with `submitReview`.
 */
export const BUYER: Operation[] = [
  operation({
    id: "buyerReleaseMachine",
    summary: "Release one of your machines",
    description: `Frees the machine's seat at once (after a reinstall, say); the app on it asks for the key again. Undo within ${String(UNDO_WINDOW_MS / 1000)} seconds with buyerRestoreMachine. A machine no longer on the license, or a license that is not the buyer's, is 404.`,
    tag: "Licenses",
    auth: "buyer",
    readOnly: false,
    input: { params: machineParams },
    output: z.object({ machine_id: z.string(), active_machines: z.int().nullable(), undo_until: z.string() }),
    errors: [401, 403, 404, 429],
    handler: async (p, c) => {
      const done = await buyerReleaseMachine(c.buyer.email, p.id, p.machine_id);
      // Released by a concurrent request a moment ago: the same 404 as a machine that is gone.
      if (!done.deactivated) throw notFound("activation", "You have no such machine on this license.");
      return { machine_id: p.machine_id, active_machines: done.active_machines, undo_until: new Date(Date.now() + UNDO_WINDOW_MS).toISOString() };
    },
  }),
  operation({
    id: "buyerRestoreMachine",
    summary: "Undo the release of one of your machines",
    description: `Puts back a machine released in the last ${String(UNDO_WINDOW_MS / 1000)} seconds, as it was, if a seat is free: 409 \`undo_expired\` after that, 409 \`no_free_seat\` when another machine took the seat. A machine that is back already changes nothing (\`restored\`: false). A license that is not the buyer's is 404.`,
    tag: "Licenses",
    auth: "buyer",
    readOnly: false,
    input: { params: machineParams },
    output: z.object({ restored: z.boolean() }),
    errors: [401, 403, 404, 409, 429],
    handler: (p, c) => buyerRestoreMachine(c.buyer.email, p.id, p.machine_id),
  }),
  operation({
    id: "buyerSaveReview",
    summary: "Review a product you bought, or change your review",
    description:
      "The review of one of the buyer's licenses: rating 1–5, an optional title and text, and the name shown (default \"Verified buyer\"; never the e-mail address). One review per license; sending again changes it. Only a license bought in this store and valid now may review (403 with the reason otherwise); a license that is not the buyer's is 404.",
    tag: "Reviews",
    auth: "buyer",
    readOnly: false,
    input: { body: reviewContentSchema.extend({ license_id: id("The license whose product is reviewed") }) },
    output: submitReviewResponseSchema,
    errors: [401, 403, 404, 429],
    handler: async (i, c) => {
      const { license_id, ...content } = i;
      const r = await submitReview({ licenseId: license_id, buyerEmail: c.buyer.email }, content);
      return { review: r.review, created: r.created, product_rating: r.productRating };
    },
  }),
  operation({
    id: "buyerSetBillingDetails",
    summary: "Add or change the billing details of one of your invoices",
    description:
      "Name, address, country (two letters) and an optional VAT ID, printed on the invoice of one of the buyer's paid orders. The invoice keeps its number and amounts; the buyer's next invoices start with these details. An order that is not the buyer's, or not paid, is 404.",
    tag: "Receipts",
    auth: "buyer",
    readOnly: false,
    input: { body: billingDetailsSchema },
    output: billingDetailsResultSchema,
    errors: [400, 401, 403, 404, 429],
    handler: (i, c) => setBillingDetails(c.buyer.email, i),
  }),
  operation({
    id: "buyerStartTransfer",
    summary: "Offer one of your licenses to another e-mail address",
    description:
      "E-mails the address a link to accept the license (valid 7 days, single use; an earlier pending offer of the license is cancelled). Only where the seller allows transfers of the product (403 `transfer_not_allowed`); never for a refunded (409 `license_refunded`), disputed (`license_disputed`), revoked (`license_revoked`), trial (`license_trial`), subscription or updates-plan (`license_subscription`) or expired (`license_expired`) license. A license that is not the buyer's is 404.",
    tag: "Licenses",
    auth: "buyer",
    readOnly: false,
    input: { body: z.object({ license_id: id("The license to transfer"), to_email: emailSchema.describe("Who receives the license") }) },
    output: transferViewSchema,
    errors: [400, 401, 403, 404, 409, 429],
    handler: (i, c) => startTransfer(c.buyer.email, i),
  }),
  operation({
    id: "buyerCancelTransfer",
    summary: "Cancel a pending transfer of one of your licenses",
    description: "The link sent to the recipient stops working. A transfer that is not the buyer's, or no longer pending, is 404.",
    tag: "Licenses",
    auth: "buyer",
    readOnly: false,
    input: { body: z.object({ transfer_id: id("The pending transfer") }) },
    output: transferViewSchema,
    errors: [400, 401, 403, 404, 429],
    handler: (i, c) => cancelTransfer(c.buyer.email, i.transfer_id),
  }),
  operation({
    id: "buyerAcceptTransfer",
    summary: "Accept a license offered to you",
    description:
      "By the link's `token`, or by the offer's `transfer_id` from My licenses; the buyer must be signed in with the address the offer names (403 `transfer_other_recipient`). The license moves to the buyer with a new key; its machines are released and the old key answers TRANSFERRED. 409 `transfer_accepted` / `transfer_cancelled`, 410 `transfer_expired`, and the refusals of buyerStartTransfer when the license may no longer be transferred.",
    tag: "Licenses",
    auth: "buyer",
    readOnly: false,
    input: {
      body: z
        .object({
          token: z
            .string()
            .trim()
            .min(20)
            .max(100)
            .regex(/^[A-Za-z0-9_-]+$/, "must be the token of the link")
            .optional()
            .describe("The token of the e-mailed link"),
          transfer_id: id("The offer, as My licenses lists it").optional(),
        })
        .refine((b) => (b.token === undefined) !== (b.transfer_id === undefined), "give either token or transfer_id"),
    },
    output: z.object({ license_id: z.string(), license_key: z.string(), released_machines: z.int() }),
    errors: [400, 401, 403, 404, 409, 410, 429],
    handler: (i, c) => acceptTransfer(c.buyer.email, i),
  }),
];
