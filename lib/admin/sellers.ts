import { getDb } from "../db.ts";
import { AppError, notFound } from "../http/errors.ts";
import { clearReadCache } from "../cache/read-cache.ts";
import { closeOpenCheckouts, expireClosedSessions, type ClosedCheckout } from "../checkout/close-order.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { suspensionEmail } from "../email/seller-templates.ts";
import type { Admin } from "./access.ts";
import { writeAudit } from "./audit.ts";
import { containsText, DEFAULT_LIMIT } from "./search.ts";

export interface AdminSeller {
  id: string;
  name: string;
  email: string;
  created_at: string;
  suspended_at: string | null;
  suspended_reason: string | null;
  /** Products by status ("active", "unlisted", "suspended", "removed"). */
  products: Record<string, number>;
  payout_ready: boolean;
}

const SELECT = {
  id: true,
  name: true,
  email: true,
  createdAt: true,
  suspendedAt: true,
  suspendedReason: true,
  payoutAccount: { select: { chargesEnabled: true, payoutsEnabled: true } },
} as const;

type Row = {
  id: string;
  name: string;
  email: string;
  createdAt: Date;
  suspendedAt: Date | null;
  suspendedReason: string | null;
  payoutAccount: { chargesEnabled: boolean; payoutsEnabled: boolean } | null;
};

async function withCounts(rows: Row[]): Promise<AdminSeller[]> {
  const groups = rows.length
    ? await getDb().product.groupBy({ by: ["developerId", "status"], where: { developerId: { in: rows.map((r) => r.id) } }, _count: { _all: true } })
    : [];
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    created_at: r.createdAt.toISOString(),
    suspended_at: r.suspendedAt?.toISOString() ?? null,
    suspended_reason: r.suspendedReason,
    products: Object.fromEntries(groups.filter((g) => g.developerId === r.id).map((g) => [g.status, g._count._all])),
    payout_ready: Boolean(r.payoutAccount?.chargesEnabled && r.payoutAccount.payoutsEnabled),
  }));
}

/** Sellers, newest first: by id, name or address, and optionally only the suspended (or only those in good standing). */
export async function listSellers(filter: { q?: string; standing?: "suspended" | "active"; limit?: number } = {}): Promise<AdminSeller[]> {
  const q = filter.q?.trim();
  const rows = await getDb().developer.findMany({
    where: {
      ...(q ? { OR: [{ id: q }, { name: containsText(q) }, { email: containsText(q) }] } : {}),
      ...(filter.standing === "suspended" ? { suspendedAt: { not: null } } : filter.standing === "active" ? { suspendedAt: null } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    take: filter.limit ?? DEFAULT_LIMIT,
    select: SELECT,
  });
  return withCounts(rows);
}

export async function getSeller(id: string): Promise<AdminSeller> {
  const row = await getDb().developer.findUnique({ where: { id }, select: SELECT });
  if (!row) throw notFound("seller");
  const [seller] = await withCounts([row]);
  if (!seller) throw notFound("seller");
  return seller;
}

/**
 * Suspends a seller: their listed products become "suspended" (gone from the store, the catalog API and MCP), their
 * open checkouts are closed (coupon redemptions given back; Stripe's sessions expired after the commit, best-effort),
 * and the publishing gate refuses them from now on. A payment that still arrives for one of their products is
 * refunded by fulfilment, never turned into a license. Licenses already sold are untouched and keep validating. The
 * seller, their checkouts, their products and the audit entry change in one transaction, conditional on the seller
 * not being suspended yet, so two operators racing suspend once.
 */
export async function suspendSeller(admin: Admin, id: string, reason: string, now = new Date()): Promise<AdminSeller> {
  const db = getDb();
  let closed: ClosedCheckout[] = [];
  await db.$transaction(async (tx) => {
    const claimed = await tx.developer.updateMany({ where: { id, suspendedAt: null }, data: { suspendedAt: now, suspendedReason: reason } });
    if (claimed.count !== 1) {
      if (!(await tx.developer.findUnique({ where: { id }, select: { id: true } }))) throw notFound("seller");
      throw new AppError("seller_already_suspended", 409, "This seller is already suspended.");
    }
    closed = await closeOpenCheckouts(tx, { developerId: id }, now);
    const hidden = await tx.product.updateMany({ where: { developerId: id, status: "active" }, data: { status: "suspended" } });
    await writeAudit(tx, admin, {
      action: "seller.suspend",
      targetType: "developer",
      targetId: id,
      detail: { reason, products_hidden: hidden.count, checkouts_closed: closed.length },
    });
    // The seller hears of it, with the operator's reason, from the same transaction (one mail per suspension).
    const seller = await tx.developer.findUniqueOrThrow({ where: { id }, select: { name: true, email: true } });
    const mail = suspensionEmail({ sellerName: seller.name, reason });
    await enqueueEmail(tx, { to: seller.email, ...mail, kind: "seller-suspended", dedupeKey: `seller-suspended:${id}:${now.toISOString()}` });
  });
  kickOutbox();
  // This instance's marketplace reads forget the listings at once (after commit, so no reader re-caches them);
  // other instances within LISTING_CACHE_TTL_MS.
  clearReadCache();
  await expireClosedSessions(closed);
  return getSeller(id);
}

/**
 * Reinstates a suspended seller: exactly the products the suspension hid ("suspended") are listed again; products
 * the seller unlisted or the operator removed stay as they are.
 */
export async function reinstateSeller(admin: Admin, id: string, note?: string): Promise<AdminSeller> {
  const db = getDb();
  await db.$transaction(async (tx) => {
    const claimed = await tx.developer.updateMany({ where: { id, suspendedAt: { not: null } }, data: { suspendedAt: null, suspendedReason: null } });
    if (claimed.count !== 1) {
      if (!(await tx.developer.findUnique({ where: { id }, select: { id: true } }))) throw notFound("seller");
      throw new AppError("seller_not_suspended", 409, "This seller is not suspended.");
    }
    const listed = await tx.product.updateMany({ where: { developerId: id, status: "suspended" }, data: { status: "active" } });
    await writeAudit(tx, admin, {
      action: "seller.reinstate",
      targetType: "developer",
      targetId: id,
      detail: { products_relisted: listed.count, ...(note ? { note } : {}) },
    });
  });
  clearReadCache();
  return getSeller(id);
}
