import { z } from "zod";
import { simulateTestDispute, TEST_DISPUTE_STEPS } from "../refunds/test-disputes.ts";
import { listAudit } from "../admin/audit.ts";
import { listPaymentEvents } from "../admin/events.ts";
import { getAdminOrder, searchOrders } from "../admin/orders.ts";
import { adminOverview } from "../admin/overview.ts";
import { featureProduct, listProducts, removeProduct, restoreProduct, unfeatureProduct } from "../admin/products.ts";
import {
  adminOrderDetailSchema,
  adminOrderSchema,
  adminProductSchema,
  adminSellerSchema,
  auditEntrySchema,
  auditQuerySchema,
  eventsQuerySchema,
  idParamsSchema,
  noteBodySchema,
  ordersQuerySchema,
  overviewSchema,
  paymentEventSchema,
  productsQuerySchema,
  reasonBodySchema,
  refundBodySchema,
  sellersQuerySchema,
} from "../admin/schemas.ts";
import { getSeller, listSellers, reinstateSeller, suspendSeller } from "../admin/sellers.ts";
import { refundOrder, toRefundOut } from "../refunds/refund-order.ts";
import { refundSchema } from "../refunds/schemas.ts";
import { operation } from "./define.ts";

/**
 * The operator's console over JSON (ADMIN_EMAILS only; anyone else gets a 404 problem, as for a path that does not
 * exist). Every write records an audit entry in its own transaction. Not offered as MCP tools.
 */
export const ADMIN = [
  operation({
    id: "getAdminOverview",
    summary: "Marketplace overview",
    description:
      "Sales, discounts, platform fees and revenue, refunds, disputes and tax for the last 12 months per currency, from the ledger; counts of orders, sellers and products.",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/overview" },
    output: overviewSchema,
    errors: [404],
    handler: () => adminOverview(),
  }),
  operation({
    id: "listAdminSellers",
    summary: "Sellers",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/sellers" },
    input: { query: sellersQuerySchema },
    output: z.object({ sellers: z.array(adminSellerSchema) }),
    errors: [404],
    handler: async (q) => ({ sellers: await listSellers(q) }),
  }),
  operation({
    id: "getAdminSeller",
    summary: "One seller",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/sellers/{id}" },
    input: { params: idParamsSchema },
    output: z.object({ seller: adminSellerSchema }),
    errors: [404],
    handler: async (p) => ({ seller: await getSeller(p.id) }),
  }),
  operation({
    id: "suspendSeller",
    summary: "Suspend a seller",
    description:
      "Hides the seller's listed products, closes their open checkouts (coupon redemptions given back, Stripe sessions expired) and stops them publishing; a payment that still arrives for one of their products is refunded, never licensed. Licenses already sold keep validating.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/sellers/{id}/suspend" },
    input: { params: idParamsSchema, body: reasonBodySchema },
    output: z.object({ seller: adminSellerSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ seller: await suspendSeller(c.admin, i.id, i.reason) }),
  }),
  operation({
    id: "reinstateSeller",
    summary: "Reinstate a suspended seller",
    description: "Lists again exactly the products the suspension hid.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/sellers/{id}/reinstate" },
    input: { params: idParamsSchema, body: noteBodySchema },
    output: z.object({ seller: adminSellerSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ seller: await reinstateSeller(c.admin, i.id, i.note) }),
  }),
  operation({
    id: "listAdminProducts",
    summary: "Products of every seller and status",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/products" },
    input: { query: productsQuerySchema },
    output: z.object({ products: z.array(adminProductSchema) }),
    errors: [404],
    handler: async (q) => ({ products: await listProducts(q) }),
  }),
  operation({
    id: "removeProduct",
    summary: "Remove a listing",
    description:
      "Unlists the product with a reason its seller sees; the seller cannot relist it. Its open checkouts are closed (coupon redemptions given back, Stripe sessions expired); a payment that still arrives is refunded, never licensed.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/products/{id}/remove" },
    input: { params: idParamsSchema, body: reasonBodySchema },
    output: z.object({ product: adminProductSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ product: await removeProduct(c.admin, i.id, i.reason) }),
  }),
  operation({
    id: "restoreProduct",
    summary: "Restore a removed listing",
    description: "Back to what it was before the removal, as far as the publishing rules allow now.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/products/{id}/restore" },
    input: { params: idParamsSchema, body: noteBodySchema },
    output: z.object({ product: adminProductSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ product: await restoreProduct(c.admin, i.id, i.note) }),
  }),
  operation({
    id: "featureProduct",
    summary: "Feature a listing on the home page",
    description: "Adds a listed product to the home page's Featured row (newest featured first, up to 8 shown).",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/products/{id}/feature" },
    input: { params: idParamsSchema },
    output: z.object({ product: adminProductSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ product: await featureProduct(c.admin, i.id) }),
  }),
  operation({
    id: "unfeatureProduct",
    summary: "Stop featuring a listing",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/products/{id}/unfeature" },
    input: { params: idParamsSchema },
    output: z.object({ product: adminProductSchema }),
    errors: [403, 404, 409],
    handler: async (i, c) => ({ product: await unfeatureProduct(c.admin, i.id) }),
  }),
  operation({
    id: "searchAdminOrders",
    summary: "Search orders",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/orders" },
    input: { query: ordersQuerySchema },
    output: z.object({ orders: z.array(adminOrderSchema) }),
    errors: [404],
    handler: async (q) => ({ orders: await searchOrders(q) }),
  }),
  operation({
    id: "getAdminOrder",
    summary: "One order, with its license, refunds, ledger entries and payment events",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/orders/{id}" },
    input: { params: idParamsSchema },
    output: z.object({ order: adminOrderDetailSchema }),
    errors: [404],
    handler: async (p) => ({ order: await getAdminOrder(p.id) }),
  }),
  operation({
    id: "refundOrderAsOperator",
    summary: "Refund an order",
    description:
      "Refunds all that remains of a paid order, or `amount_cents` of it, with a reason the buyer's e-mail carries. A full refund revokes the license. Racing refunds never exceed what was paid.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/orders/{id}/refund", status: 201 },
    input: { params: idParamsSchema, body: refundBodySchema },
    output: z.object({ refund: refundSchema, full: z.boolean(), order: adminOrderDetailSchema }),
    errors: [400, 403, 404, 409, 502],
    handler: async (i, c) => {
      const refund = await refundOrder({
        orderId: i.id,
        ...(i.amount_cents !== undefined ? { amountCents: i.amount_cents } : {}),
        reason: i.reason,
        actor: { kind: "operator", email: c.admin.email },
      });
      return { refund: toRefundOut(refund), full: refund.full, order: await getAdminOrder(i.id) };
    },
  }),
  operation({
    id: "simulateTestDispute",
    summary: "Play the bank in test mode: open, win or lose a dispute",
    description:
      "Test mode only, on a test-mode order: `open` suspends the license, records the dispute in the ledger and e-mails the seller; then `won` reinstates the license, `lost` revokes it — the same effects a Stripe dispute has.",
    tag: "Admin",
    auth: "admin",
    http: { method: "POST", path: "/api/admin/orders/{id}/test-dispute" },
    input: { params: idParamsSchema, body: z.object({ step: z.enum(TEST_DISPUTE_STEPS) }).strict() },
    output: z.object({ outcome: z.string(), order: adminOrderDetailSchema }),
    errors: [400, 403, 404, 409],
    handler: async (i, c) => {
      const r = await simulateTestDispute(i.id, i.step, c.admin);
      return { outcome: r.outcome, order: await getAdminOrder(i.id) };
    },
  }),
  operation({
    id: "listPaymentEvents",
    summary: "Payment events received",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/payment-events" },
    input: { query: eventsQuerySchema },
    output: z.object({ events: z.array(paymentEventSchema) }),
    errors: [404],
    handler: async (q) => ({ events: await listPaymentEvents(q) }),
  }),
  operation({
    id: "listAuditEntries",
    summary: "The operator's actions",
    tag: "Admin",
    auth: "admin",
    http: { method: "GET", path: "/api/admin/audit" },
    input: { query: auditQuerySchema },
    output: z.object({ entries: z.array(auditEntrySchema) }),
    errors: [404],
    handler: async (q) => ({ entries: await listAudit(q) }),
  }),
];
