import type { OrderMoney } from "../pricing.ts";
import type { Actor, ActorType } from "../licensing/license-events.ts";

/**
 * The `data` of the seller webhooks about licenses, orders, refunds and disputes: one builder per object, so every
 * event that carries a license (say) carries the same fields with the same names as the rest of the seller API
 * (snake_case, amounts in minor units with their currency, times in ISO 8601).
 */

const iso = (t: Date | number | null | undefined): string | null => (t === null || t === undefined ? null : new Date(t).toISOString());

/** What a license payload is built from, as read in the transaction of the change (see LICENSE_FACTS). */
export interface LicenseFacts {
  id: string;
  key: string;
  productId: string;
  buyerEmail: string;
  isActive: boolean;
  revocation?: string | null;
  maxMachines: number;
  activeMachines: number;
  source: string;
  orderId: string | null;
  issuedAt: Date | number;
  expiresAt: Date | number | null;
  product: { pluginId: string; developerId: string };
}

/** The Prisma selection that gives LicenseFacts in the query a change already makes. */
export const LICENSE_FACTS = {
  id: true,
  key: true,
  productId: true,
  buyerEmail: true,
  isActive: true,
  revocation: true,
  maxMachines: true,
  activeMachines: true,
  source: true,
  orderId: true,
  issuedAt: true,
  expiresAt: true,
  product: { select: { pluginId: true, developerId: true } },
} as const;

export function licensePayload(l: LicenseFacts) {
  return {
    id: l.id,
    key: l.key,
    product_id: l.productId,
    plugin_id: l.product.pluginId,
    buyer_email: l.buyerEmail,
    status: l.isActive ? ("active" as const) : ("revoked" as const),
    /** Why it is revoked: "seller", "refunded", "disputed" (suspended while a dispute is open), "dispute_lost", "upgraded" (retired by an upgrade); null while active. */
    revocation: l.isActive ? null : (l.revocation ?? null),
    max_machines: l.maxMachines,
    active_machines: l.activeMachines,
    source: l.source,
    order_id: l.orderId,
    issued_at: iso(l.issuedAt),
    expires_at: iso(l.expiresAt),
  };
}

export interface MachineFacts {
  fingerprint: string;
  machineName?: string | null;
  platform?: string | null;
  appVersion?: string | null;
}

export function machinePayload(m: MachineFacts) {
  return { fingerprint: m.fingerprint, name: m.machineName ?? null, platform: m.platform ?? null, app_version: m.appVersion ?? null };
}

export function actorPayload(actor: Actor): { type: ActorType; name: string | null } {
  return { type: actor.type, name: actor.name };
}

export interface OrderFacts extends OrderMoney {
  id: string;
  productId: string;
  buyerEmail: string;
  refundedCents: number;
  status: string;
  disputeStatus: string | null;
  paidAt: Date | null;
}

export function orderPayload(o: OrderFacts) {
  return {
    id: o.id,
    product_id: o.productId,
    buyer_email: o.buyerEmail,
    quantity: o.quantity,
    currency: o.currency,
    subtotal_cents: o.subtotalCents,
    discount_cents: o.discountCents,
    coupon_code: o.couponCode,
    /** What the buyer paid for the product, after discount and before tax. */
    amount_cents: o.amountCents,
    tax_cents: o.taxCents,
    refunded_cents: o.refundedCents,
    status: o.status,
    dispute_status: o.disputeStatus,
    paid_at: iso(o.paidAt),
  };
}

export function refundPayload(r: { id: string; amountCents: number; currency: string; reason: string; initiatedBy: string }, full: boolean) {
  return { id: r.id, amount_cents: r.amountCents, currency: r.currency, reason: r.reason, initiated_by: r.initiatedBy, full };
}

export function disputePayload(d: { id: string; amount: number; currency: string; reason: string; status: string }, outcome?: "won" | "lost") {
  return {
    id: d.id,
    amount_cents: d.amount,
    currency: d.currency.toLowerCase(),
    reason: d.reason,
    status: d.status,
    ...(outcome ? { outcome } : {}),
  };
}

/** What a release payload is built from, as read in the transaction of the change (lib/releases/manage.ts). */
export interface ReleaseFacts {
  id: string;
  version: string;
  channel: string;
  notes: string;
  publishedAt: Date | null;
  yankedAt?: Date | null;
  product: { id: string; name: string; pluginId: string };
  artifacts: Array<{ platform: string; format: string; fileType: string; filename: string; size: number; sha256: string }>;
}

/**
 * The `data` of the release events (`release.published`, `release.yanked`): what was published or withdrawn, never a
 * download link (those are per buyer and signed). An application's `format` is null, as in the API's ArtifactView.
 */
export function releasePayload(r: ReleaseFacts) {
  return {
    product: { id: r.product.id, name: r.product.name, plugin_id: r.product.pluginId },
    release: {
      id: r.id,
      version: r.version,
      channel: r.channel,
      published_at: iso(r.publishedAt),
      ...(r.yankedAt !== undefined ? { yanked_at: iso(r.yankedAt) } : {}),
      notes: r.notes,
      artifacts: r.artifacts.map((a) => ({
        platform: a.platform,
        format: a.format === "" ? null : a.format,
        file_type: a.fileType,
        filename: a.filename,
        size: a.size,
        sha256: a.sha256,
      })),
    },
  };
}
