import { getDb } from "../db.ts";
import { publishBlocker } from "../selling/publish-gate.ts";
import { AppError, notFound } from "../http/errors.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { closeOpenCheckouts, expireClosedSessions, type ClosedCheckout } from "../checkout/close-order.ts";
import type { Admin } from "./access.ts";
import { writeAudit } from "./audit.ts";
import { containsText, DEFAULT_LIMIT } from "./search.ts";

export interface AdminProduct {
  id: string;
  name: string;
  plugin_id: string;
  status: string;
  moderation_reason: string | null;
  price_cents: number;
  currency: string;
  sales_count: number;
  seller: { id: string; name: string; email: string; suspended: boolean };
  created_at: string;
  /** When the operator featured it on the home page; null when not featured. */
  featured_at: string | null;
}

const SELECT = {
  id: true,
  name: true,
  pluginId: true,
  status: true,
  moderationReason: true,
  priceCents: true,
  currency: true,
  salesCount: true,
  createdAt: true,
  featuredAt: true,
  developer: { select: { id: true, name: true, email: true, suspendedAt: true } },
} as const;

type Row = {
  id: string;
  name: string;
  pluginId: string;
  status: string;
  moderationReason: string | null;
  priceCents: number;
  currency: string;
  salesCount: number;
  createdAt: Date;
  featuredAt: Date | null;
  developer: { id: string; name: string; email: string; suspendedAt: Date | null };
};

const toAdminProduct = (p: Row): AdminProduct => ({
  id: p.id,
  name: p.name,
  plugin_id: p.pluginId,
  status: p.status,
  moderation_reason: p.moderationReason,
  price_cents: p.priceCents,
  currency: p.currency,
  sales_count: p.salesCount,
  seller: { id: p.developer.id, name: p.developer.name, email: p.developer.email, suspended: p.developer.suspendedAt !== null },
  created_at: p.createdAt.toISOString(),
  featured_at: p.featuredAt?.toISOString() ?? null,
});

/** Products of every status, newest first: by id, plugin id, name or words, seller, or status. */
export async function listProducts(filter: { q?: string; status?: string; seller_id?: string; limit?: number } = {}): Promise<AdminProduct[]> {
  const q = filter.q?.trim();
  const rows = await getDb().product.findMany({
    where: {
      ...(q
        ? {
            OR: [
              { id: q },
              { pluginId: q },
              { searchText: { contains: q.toLowerCase() } },
              { name: containsText(q) },
              { developer: { email: containsText(q) } },
              { developer: { name: containsText(q) } },
            ],
          }
        : {}),
      ...(filter.status ? { status: filter.status } : {}),
      ...(filter.seller_id ? { developerId: filter.seller_id } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: filter.limit ?? DEFAULT_LIMIT,
    select: SELECT,
  });
  return rows.map(toAdminProduct);
}

async function getAdminProduct(id: string): Promise<AdminProduct> {
  const row = await getDb().product.findUnique({ where: { id }, select: SELECT });
  if (!row) throw notFound("product");
  return toAdminProduct(row);
}

/**
 * Removes a listing with a reason the seller sees. The seller cannot relist it (setProductStatus refuses "removed");
 * licenses already sold keep validating. Its open checkouts are closed in the same transaction (coupon redemptions
 * given back; Stripe's sessions expired after the commit, best-effort), and a payment that still arrives is
 * refunded by fulfilment, never turned into a license. Conditional on the status read, so a seller's change in
 * between is not overwritten silently: the operator is asked to retry.
 */
export async function removeProduct(admin: Admin, id: string, reason: string, now = new Date()): Promise<AdminProduct> {
  let closed: ClosedCheckout[] = [];
  await getDb().$transaction(async (tx) => {
    const product = await tx.product.findUnique({ where: { id }, select: { status: true } });
    if (!product) throw notFound("product");
    if (product.status === "removed") throw new AppError("product_already_removed", 409, "This listing is already removed.");
    closed = await closeOpenCheckouts(tx, { productId: id }, now);
    const { count } = await tx.product.updateMany({ where: { id, status: product.status }, data: { status: "removed", moderationReason: reason } });
    if (count !== 1) throw new AppError("listing_changed", 409, "This listing changed in the meantime; reload and try again.");
    await writeAudit(tx, admin, {
      action: "product.remove",
      targetType: "product",
      targetId: id,
      detail: { reason, from: product.status, checkouts_closed: closed.length },
    });
  });
  clearReadCache();
  await expireClosedSessions(closed);
  return getAdminProduct(id);
}

/**
 * Restores a removed listing to what it was before the removal (recorded in its audit entry), as far as the rules
 * allow now: a suspended seller's listing becomes "suspended" (it returns when they are reinstated), and a listing
 * that may not be published now (a paid one without a ready payout account) becomes "unlisted" for the seller to
 * relist once they can.
 */
export async function restoreProduct(admin: Admin, id: string, note?: string): Promise<AdminProduct> {
  const db = getDb();
  const product = await db.product.findUnique({ where: { id }, select: { status: true, developerId: true, priceCents: true } });
  if (!product) throw notFound("product");
  if (product.status !== "removed") throw new AppError("product_not_removed", 409, "Only a removed listing can be restored.");
  const removal = await db.auditEntry.findFirst({
    where: { targetType: "product", targetId: id, action: "product.remove" },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    select: { detail: true },
  });
  const before = (removal?.detail as { from?: unknown } | null)?.from;
  const blocker = await publishBlocker(product.developerId, product.priceCents);
  let status = "unlisted";
  if (before === "active" || before === "suspended") {
    if (blocker?.code === "seller_suspended") status = "suspended";
    else if (!blocker) status = "active";
  }
  await db.$transaction(async (tx) => {
    // A suspension since the gate was read wins: the listing waits for the reinstatement.
    const seller = await tx.developer.findUnique({ where: { id: product.developerId }, select: { suspendedAt: true } });
    if (status === "active" && seller?.suspendedAt) status = "suspended";
    const { count } = await tx.product.updateMany({ where: { id, status: "removed" }, data: { status, moderationReason: null } });
    if (count !== 1) throw new AppError("product_not_removed", 409, "Only a removed listing can be restored.");
    await writeAudit(tx, admin, {
      action: "product.restore",
      targetType: "product",
      targetId: id,
      detail: { to: status, ...(note ? { note } : {}) },
    });
  });
  clearReadCache();
  return getAdminProduct(id);
}

/**
 * Features a listed product on the home page (newest featured first). Only a listed product can be featured; the
 * update is conditional on both, so racing requests feature it once and write one audit entry.
 */
export async function featureProduct(admin: Admin, id: string): Promise<AdminProduct> {
  await getDb().$transaction(async (tx) => {
    const at = new Date();
    const { count } = await tx.product.updateMany({ where: { id, status: "active", featuredAt: null }, data: { featuredAt: at } });
    if (count !== 1) {
      const product = await tx.product.findUnique({ where: { id }, select: { status: true, featuredAt: true } });
      if (!product) throw notFound("product");
      if (product.status !== "active") throw new AppError("product_not_listed", 409, "Only a listed product can be featured.");
      throw new AppError("product_already_featured", 409, "This product is already featured.");
    }
    await writeAudit(tx, admin, { action: "product.feature", targetType: "product", targetId: id, detail: { featured_at: at.toISOString() } });
  });
  clearReadCache();
  return getAdminProduct(id);
}

/** Takes a product off the home page's featured row, whatever its status now. */
export async function unfeatureProduct(admin: Admin, id: string): Promise<AdminProduct> {
  await getDb().$transaction(async (tx) => {
    const product = await tx.product.findUnique({ where: { id }, select: { featuredAt: true } });
    if (!product) throw notFound("product");
    const { count } = await tx.product.updateMany({ where: { id, featuredAt: { not: null } }, data: { featuredAt: null } });
    if (count !== 1) throw new AppError("product_not_featured", 409, "This product is not featured.");
    await writeAudit(tx, admin, {
      action: "product.unfeature",
      targetType: "product",
      targetId: id,
      detail: { featured_at: product.featuredAt?.toISOString() ?? null },
    });
  });
  clearReadCache();
  return getAdminProduct(id);
}
