import { z } from "zod";
import { getOrder, listOrders } from "../refunds/orders.ts";
import { refundOrder, toRefundOut } from "../refunds/refund-order.ts";
import { orderDetailSchema, orderParamsSchema, ordersPageSchema, ordersQuerySchema, refundRequestSchema, refundSchema } from "../refunds/schemas.ts";
import { operation } from "./define.ts";

/** The refunds operations (issue 13): a seller's orders and refunds of them; another seller's order is a 404. */
export const REFUNDS = [
  operation({
    id: "listOrders",
    summary: "Orders of your products",
    description: "Newest first, 25 a page; `q` finds an order by its id, the buyer's e-mail or the product's name.",
    tag: "Orders",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "GET", path: "/api/v1/orders" },
    input: { query: ordersQuerySchema },
    output: ordersPageSchema,
    errors: [401, 403],
    handler: (q, c) => listOrders(c.seller.developer.id, q),
  }),
  operation({
    id: "getOrder",
    summary: "One order of your products, with its refunds, license and dispute",
    tag: "Orders",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "GET", path: "/api/v1/orders/{id}" },
    input: { params: orderParamsSchema },
    output: z.object({ order: orderDetailSchema }),
    errors: [401, 403, 404],
    handler: async (p, c) => ({ order: await getOrder(c.seller.developer.id, p.id) }),
  }),
  operation({
    id: "refundOrder",
    summary: "Refund an order, in full or in part",
    description:
      "Refunds `amount_cents` (default: all that remains of price + tax) to the buyer's payment method. A full refund revokes the license (validation answers REFUNDED); the buyer is e-mailed either way. 409 refund_exceeds_remaining when the amount is above what remains.",
    tag: "Orders",
    auth: "seller",
    sellerScope: "orders",
    http: { method: "POST", path: "/api/v1/orders/{id}/refunds", status: 201 },
    input: { params: orderParamsSchema, body: refundRequestSchema },
    output: z.object({ refund: refundSchema }),
    errors: [401, 403, 404, 409, 502],
    handler: async (i, c) => {
      const seller = c.seller;
      const refund = await refundOrder({
        orderId: i.id,
        amountCents: i.amount_cents,
        reason: i.reason,
        // Logged as the revocations are: the session's e-mail, or "token:<name>" for a seller API token.
        actor: { kind: "seller", developerId: seller.developer.id, email: seller.email, name: seller.actor },
      });
      return { refund: toRefundOut(refund) };
    },
  }),
];
