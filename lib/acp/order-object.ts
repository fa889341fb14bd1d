import type { Db } from "../db.ts";
import { downloadPath } from "../marketplace/get-download.ts";
import { absoluteUrl, paths, productIconPath } from "../urls.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** ACP's `Total` (the subset of types an order of ours can have). */
interface AcpTotal {
  type: "items_base_amount" | "items_discount" | "subtotal" | "discount" | "tax" | "total" | "amount_refunded";
  display_text: string;
  amount: number;
}

interface LineItemRef {
  id: string;
  quantity: number;
}

/**
 * The Agentic Commerce Protocol's `Order` (openapi.agentic_checkout.yaml, components.schemas.Order), as this seller of
 * digital goods fills it in: one line item (the product, quantity = seats), one digital fulfilment (the license),
 * refunds and disputes as adjustments. Only fields the official JSON Schema allows at each level; extra facts a buyer
 * needs (activation instructions, receipt and credential links) sit in `digital_delivery`, the one open object.
 */
export interface AcpOrder {
  type: "order";
  id: string;
  checkout_session_id: string;
  order_number: string;
  permalink_url: string;
  status: "created" | "completed" | "canceled";
  confirmation?: { confirmation_number: string; confirmation_email_sent: boolean; receipt_url?: string };
  line_items: Array<{
    id: string;
    title: string;
    product_id: string;
    image_url: string;
    url: string;
    quantity: { ordered: number; current: number; fulfilled: number };
    unit_price: number;
    subtotal: number;
    status: "processing" | "fulfilled" | "removed";
  }>;
  fulfillments: Array<{
    id: string;
    type: "digital";
    status: "pending" | "delivered" | "canceled";
    line_items: LineItemRef[];
    digital_delivery?: {
      access_url: string;
      license_key: string;
      expires_at?: string;
      activation_instructions: string;
      receipt_url: string;
      credential_url: string;
      max_machines: number;
      plugin_id: string;
      license_status: "active" | "revoked" | "suspended" | "expired";
    };
    events: Array<{ id: string; type: string; occurred_at: string }>;
  }>;
  adjustments: Array<{
    id: string;
    type: "refund" | "dispute";
    occurred_at: string;
    status: "pending" | "completed" | "failed";
    line_items?: LineItemRef[];
    amount?: number;
    currency: string;
    reason: string;
  }>;
  totals: AcpTotal[];
}

/** Line items are named after the order so that references from fulfilments and adjustments stay stable. */
const lineItemId = (orderId: string) => `li_${orderId}`;

/** Order.status → ACP order status: paid orders are delivered at once (the key is the goods). */
function orderStatus(status: string): AcpOrder["status"] {
  if (status === "paid") return "completed";
  if (status === "open") return "created";
  return "canceled";
}

function licenseStatus(license: { isActive: boolean; revocation: string | null; expiresAt: Date | null }, now: Date) {
  if (license.revocation === "disputed") return "suspended" as const;
  if (!license.isActive) return "revoked" as const;
  if (license.expiresAt && license.expiresAt <= now) return "expired" as const;
  return "active" as const;
}

/** How a buyer (or the agent acting for them) puts the key to use: the product asks for it, or the public API. */
function activationInstructions(productName: string, pluginId: string, maxMachines: number): string {
  return [
    `Install ${productName} and open it; on first launch it asks for the license key: paste it.`,
    `The key works on up to ${maxMachines} machine${maxMachines === 1 ? "" : "s"} at a time.`,
    `Programs and agents activate with POST ${absoluteUrl("/activate")} {"license_key", "machine_fingerprint" (SHA-256 hex of CPU brand + OS id), "plugin_id": "${pluginId}"},`,
    `check with POST ${absoluteUrl("/validate")} (same body) and release a machine with POST ${absoluteUrl("/deactivate")}.`,
  ].join(" ");
}

/**
 * The ACP `Order` for one of our orders, from what the database holds now (call it inside a transaction to describe
 * the order as that transaction leaves it). Totals follow the checkout session's: the list price × seats, the coupon's
 * discount, the subtotal, tax (only when the payment provider calculated it), the total charged, and what has been
 * refunded. The platform's 5 % fee is the seller's cost and never appears in the buyer's totals.
 */
export async function acpOrderObject(db: Db | Tx, orderId: string): Promise<AcpOrder> {
  const order = await db.order.findUniqueOrThrow({
    where: { id: orderId },
    include: {
      product: { select: { id: true, name: true, pluginId: true, iconUrl: true, priceCents: true } },
      license: { select: { id: true, key: true, maxMachines: true, isActive: true, revocation: true, expiresAt: true, issuedAt: true } },
      refunds: {
        orderBy: { createdAt: "asc" },
        select: { id: true, amountCents: true, currency: true, reason: true, status: true, createdAt: true },
      },
    },
  });
  const session = await db.acpCheckoutSession.findUnique({ where: { orderId }, select: { id: true } });
  // The license e-mail goes through the outbox: "sent" only once the mail provider took it.
  const mail = await db.emailMessage.findUnique({ where: { dedupeKey: `license:${orderId}` }, select: { status: true } });
  const now = new Date();
  const li = lineItemId(order.id);
  const quantity = Math.max(1, order.quantity);
  const subtotal = order.subtotalCents > 0 ? order.subtotalCents : order.amountCents + order.discountCents;
  const fullyRefunded = order.refundedCents > 0 && order.refundedCents >= order.amountCents + (order.taxCents ?? 0);
  const license = order.license;
  const receiptUrl = license ? absoluteUrl(`/api/receipt?key=${encodeURIComponent(license.key)}`) : undefined;
  const fulfilled = license ? quantity : 0;
  const current = fullyRefunded ? 0 : quantity;

  const fulfillment: AcpOrder["fulfillments"][number] = {
    id: `ful_${order.id}`,
    type: "digital",
    status: license
      ? licenseStatus(license, now) === "revoked"
        ? "canceled"
        : "delivered"
      : orderStatus(order.status) === "canceled"
        ? "canceled"
        : "pending",
    line_items: [{ id: li, quantity }],
    events: [],
  };
  if (license && receiptUrl) {
    fulfillment.digital_delivery = {
      access_url: absoluteUrl(downloadPath(order.productId, license)),
      license_key: license.key,
      ...(license.expiresAt ? { expires_at: license.expiresAt.toISOString() } : {}),
      activation_instructions: activationInstructions(order.product.name, order.product.pluginId, license.maxMachines),
      receipt_url: receiptUrl,
      credential_url: absoluteUrl(`/api/receipt/credential?key=${encodeURIComponent(license.key)}`),
      max_machines: license.maxMachines,
      plugin_id: order.product.pluginId,
      license_status: licenseStatus(license, now),
    };
    fulfillment.events.push({ id: `evt_${order.id}_delivered`, type: "delivered", occurred_at: license.issuedAt.toISOString() });
  }

  const adjustments: AcpOrder["adjustments"] = order.refunds.map((r) => ({
    id: `adj_${r.id}`,
    type: "refund",
    occurred_at: r.createdAt.toISOString(),
    status: r.status === "succeeded" ? "completed" : r.status === "failed" ? "failed" : "pending",
    amount: r.amountCents,
    currency: r.currency,
    reason: r.reason,
  }));
  if (order.disputeStatus) {
    adjustments.push({
      id: `adj_dispute_${order.id}`,
      type: "dispute",
      occurred_at: order.updatedAt.toISOString(),
      status: order.disputeStatus === "open" ? "pending" : "completed",
      line_items: [{ id: li, quantity }],
      currency: order.currency,
      reason: `dispute_${order.disputeStatus}`,
    });
  }

  const totals: AcpTotal[] = [
    { type: "items_base_amount", display_text: "Price", amount: subtotal },
    ...(order.discountCents > 0
      ? [{ type: "discount" as const, display_text: order.couponCode ? `Discount (${order.couponCode})` : "Discount", amount: order.discountCents }]
      : []),
    { type: "subtotal", display_text: "Subtotal", amount: order.amountCents },
    ...(order.taxCents !== null ? [{ type: "tax" as const, display_text: "Tax", amount: order.taxCents }] : []),
    { type: "total", display_text: "Total", amount: order.amountCents + (order.taxCents ?? 0) },
    ...(order.refundedCents > 0 ? [{ type: "amount_refunded" as const, display_text: "Refunded", amount: order.refundedCents }] : []),
  ];

  return {
    type: "order",
    id: order.id,
    checkout_session_id: session?.id ?? order.id,
    order_number: order.id,
    permalink_url: absoluteUrl(`/checkout/${encodeURIComponent(order.id)}/success`),
    status: orderStatus(order.status),
    ...(order.status === "paid"
      ? {
          confirmation: {
            confirmation_number: order.id,
            confirmation_email_sent: mail?.status === "sent",
            ...(receiptUrl ? { receipt_url: receiptUrl } : {}),
          },
        }
      : {}),
    line_items: [
      {
        id: li,
        title: order.product.name,
        product_id: order.product.id,
        image_url: absoluteUrl(productIconPath(order.product.iconUrl)),
        url: absoluteUrl(paths.product(order.product.id)),
        quantity: { ordered: quantity, current, fulfilled: Math.min(fulfilled, current) },
        unit_price: Math.round(subtotal / quantity),
        subtotal,
        status: current === 0 ? "removed" : license ? "fulfilled" : "processing",
      },
    ],
    fulfillments: [fulfillment],
    adjustments,
    totals,
  };
}
