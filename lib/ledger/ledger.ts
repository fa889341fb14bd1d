import { getDb, type Db } from "../db.ts";
import { LEDGER_KINDS, type LedgerKind } from "./kinds.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/** One movement to record. `amountMinor` is signed from the seller's side: towards the seller positive. */
export interface LedgerEntryInput {
  key: string;
  developerId: string;
  orderId?: string | null;
  kind: LedgerKind;
  amountMinor: number;
  currency: string;
  createdAt?: Date;
  memo?: string | null;
}

const NEGATIVE: ReadonlySet<LedgerKind> = new Set(["discount", "platform_fee", "refund", "tax_refund", "dispute", "payout"]);

function check(e: LedgerEntryInput): void {
  if (!LEDGER_KINDS.includes(e.kind)) throw new Error(`ledger: unknown kind ${e.kind}`);
  if (!Number.isSafeInteger(e.amountMinor)) throw new Error(`ledger: ${e.key}: amount is not an integer of minor units`);
  if (e.amountMinor !== 0 && NEGATIVE.has(e.kind) !== e.amountMinor < 0) throw new Error(`ledger: ${e.key}: ${e.kind} has the wrong sign`);
  if (!/^[a-z]{3}$/.test(e.currency)) throw new Error(`ledger: ${e.key}: currency must be ISO 4217 in lower case`);
}

/**
 * Appends entries, each at most once: an entry whose key is already recorded is skipped. Call it inside the
 * transaction that makes the movement happen (SQLite's Prisma has no createMany skipDuplicates, so the keys are
 * read first; a concurrent writer of the same key fails on the unique index and its transaction rolls back). The
 * ledger is append-only: there is no update or delete of entries anywhere; a correction is a new entry.
 */
export async function recordEntries(tx: Tx, entries: LedgerEntryInput[]): Promise<number> {
  if (entries.length === 0) return 0;
  entries.forEach(check);
  const existing = await tx.ledgerEntry.findMany({ where: { key: { in: entries.map((e) => e.key) } }, select: { key: true } });
  const seen = new Set(existing.map((e) => e.key));
  const fresh = entries.filter((e) => !seen.has(e.key) && (seen.add(e.key), true));
  if (fresh.length === 0) return 0;
  const { count } = await tx.ledgerEntry.createMany({
    data: fresh.map((e) => ({
      key: e.key,
      developerId: e.developerId,
      orderId: e.orderId ?? null,
      kind: e.kind,
      amountMinor: e.amountMinor,
      currency: e.currency,
      memo: e.memo ?? null,
      ...(e.createdAt ? { createdAt: e.createdAt } : {}),
    })),
  });
  return count;
}

/**
 * A paid order's entries: the sale at list price × quantity (+subtotal), the coupon's discount (−), the platform fee
 * (−, fixed on the order at checkout, computed on what was paid) and the tax charged on top (+, when calculated).
 */
export function saleEntries(order: {
  id: string;
  developerId: string;
  subtotalCents: number;
  discountCents: number;
  amountCents: number;
  feeCents: number;
  taxCents: number | null;
  currency: string;
  paidAt: Date;
}): LedgerEntryInput[] {
  const common = { developerId: order.developerId, orderId: order.id, currency: order.currency, createdAt: order.paidAt };
  if (order.subtotalCents - order.discountCents !== order.amountCents) {
    throw new Error(
      `ledger: order ${order.id}: subtotal ${order.subtotalCents} − discount ${order.discountCents} is not the amount ${order.amountCents}`,
    );
  }
  return [
    { ...common, key: `sale:${order.id}`, kind: "sale", amountMinor: order.subtotalCents },
    ...(order.discountCents > 0 ? [{ ...common, key: `discount:${order.id}`, kind: "discount" as const, amountMinor: -order.discountCents }] : []),
    { ...common, key: `platform_fee:${order.id}`, kind: "platform_fee", amountMinor: -order.feeCents },
    ...(order.taxCents ? [{ ...common, key: `tax:${order.id}`, kind: "tax" as const, amountMinor: order.taxCents }] : []),
  ];
}

/**
 * One currency's figures, all in minor units and non-negative except `net`: gross is the sales at list price,
 * discounts what coupons took off, fees the platform's fees less fees refunded, refunds and disputes what went back
 * to buyers (disputes less reversals); net = gross − discounts − fees − refunds − disputes, what the seller earned.
 * Tax (collected less refunded) is money for the tax authority, shown apart and not part of net; payouts what was
 * paid out.
 */
export interface CurrencyTotals {
  currency: string;
  orders: number;
  gross: number;
  discounts: number;
  fees: number;
  tax: number;
  refunds: number;
  disputes: number;
  net: number;
  payouts: number;
}

interface Range {
  from?: Date;
  to?: Date;
}

function createdAt(range: Range) {
  return range.from || range.to ? { createdAt: { ...(range.from ? { gte: range.from } : {}), ...(range.to ? { lt: range.to } : {}) } } : {};
}

/** Folds ledger rows (or sums by currency and kind) into each currency's totals, currencies in alphabetical order. */
function totalsOf(rows: { currency: string; kind: string; amountMinor: number; count?: number }[]): CurrencyTotals[] {
  const by = new Map<string, CurrencyTotals>();
  for (const r of rows) {
    let t = by.get(r.currency);
    if (!t)
      by.set(
        r.currency,
        (t = { currency: r.currency, orders: 0, gross: 0, discounts: 0, fees: 0, tax: 0, refunds: 0, disputes: 0, net: 0, payouts: 0 }),
      );
    const a = r.amountMinor;
    switch (r.kind as LedgerKind) {
      case "sale":
        t.gross += a;
        t.orders += r.count ?? 1;
        break;
      case "discount":
        t.discounts -= a;
        break;
      case "platform_fee":
      case "fee_refund":
        t.fees -= a;
        break;
      case "tax":
      case "tax_refund":
        t.tax += a;
        continue;
      case "refund":
        t.refunds -= a;
        break;
      case "dispute":
      case "dispute_reversal":
        t.disputes -= a;
        break;
      case "payout":
        t.payouts -= a;
        continue;
    }
    t.net += a;
  }
  return [...by.values()].sort((x, y) => x.currency.localeCompare(y.currency));
}

async function sums(where: object): Promise<CurrencyTotals[]> {
  const groups = await getDb().ledgerEntry.groupBy({ by: ["currency", "kind"], where, _sum: { amountMinor: true }, _count: { _all: true } });
  return totalsOf(groups.map((g) => ({ currency: g.currency, kind: g.kind, amountMinor: g._sum.amountMinor ?? 0, count: g._count._all })));
}

/** A seller's totals per currency over [from, to), from the ledger alone. */
export function sellerTotals(developerId: string, range: Range = {}): Promise<CurrencyTotals[]> {
  return sums({ developerId, ...createdAt(range) });
}

/** The platform's revenue per currency over [from, to): its fees less fees refunded, over all sellers. */
export async function platformRevenue(range: Range = {}): Promise<{ currency: string; revenue: number }[]> {
  const totals = await sums({ kind: { in: ["platform_fee", "fee_refund"] }, ...createdAt(range) });
  return totals.map((t) => ({ currency: t.currency, revenue: t.fees }));
}
