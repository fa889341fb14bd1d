import { z } from "zod";
import { getDb, type Db } from "../db.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { saleDigestEmail, saleEmail, type SaleKind } from "../email/seller-templates.ts";
import { outboxLoop } from "../jobs/outbox-loop.ts";

type Tx = Parameters<Parameters<Db["$transaction"]>[0]>[0];

/**
 * How a seller hears of their sales (Developer.saleEmails): "each" — one e-mail per paid order, queued in the
 * payment's transaction; "daily" — one digest per UTC day with sales, totals per currency, from the job loop; "off".
 */
const SALE_EMAIL_CHOICES = ["each", "daily", "off"] as const;
export type SaleEmailChoice = (typeof SALE_EMAIL_CHOICES)[number];

export const saleEmailsInputSchema = z.object({
  sale_emails: z
    .enum(SALE_EMAIL_CHOICES)
    .describe('"each": an e-mail on each paid order; "daily": one digest a day with sales (UTC days); "off": none'),
});
export const saleEmailsOutputSchema = z.object({ sale_emails: z.enum(SALE_EMAIL_CHOICES) });

const asChoice = (value: string): SaleEmailChoice =>
  (SALE_EMAIL_CHOICES as readonly string[]).includes(value) ? (value as SaleEmailChoice) : "each";

export async function getSaleEmails(developerId: string): Promise<SaleEmailChoice> {
  const row = await getDb().developer.findUnique({ where: { id: developerId }, select: { saleEmails: true } });
  return asChoice(row?.saleEmails ?? "each");
}

export async function setSaleEmails(developerId: string, choice: SaleEmailChoice): Promise<{ sale_emails: SaleEmailChoice }> {
  const row = await getDb().developer.update({ where: { id: developerId }, data: { saleEmails: choice }, select: { saleEmails: true } });
  return { sale_emails: asChoice(row.saleEmails) };
}

export interface PaidOrderFacts {
  id: string;
  buyerEmail: string;
  amountCents: number;
  currency: string;
  quantity: number;
  couponCode: string | null;
  product: { name: string; developerId: string; maxMachines: number; isBundle: boolean };
}

/**
 * Queues the seller's e-mail about one paid order, in the payment's transaction (so it exists exactly when the sale
 * does), when the seller's setting is "each". One per order (dedupe key), however often the payment is replayed.
 */
export async function queueSaleEmail(tx: Tx, order: PaidOrderFacts, kind: SaleKind): Promise<void> {
  const seller = await tx.developer.findUnique({ where: { id: order.product.developerId }, select: { email: true, saleEmails: true } });
  if (!seller || asChoice(seller.saleEmails) !== "each") return;
  const mail = saleEmail({
    kind,
    productName: order.product.name,
    orderId: order.id,
    amountCents: order.amountCents,
    currency: order.currency,
    seats: order.quantity,
    machines: kind === "sale" && !order.product.isBundle ? order.product.maxMachines * order.quantity : null,
    buyerEmail: order.buyerEmail,
    couponCode: order.couponCode,
  });
  await enqueueEmail(tx, { to: seller.email, ...mail, kind: "sale", dedupeKey: `sale:${order.id}` });
}

const DAY_MS = 86_400_000;

/** The UTC day before `now`, as "YYYY-MM-DD" with its bounds. */
export function previousUtcDay(now: Date): { day: string; from: Date; to: Date } {
  const to = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const from = new Date(to.getTime() - DAY_MS);
  return { day: from.toISOString().slice(0, 10), from, to };
}

const digestKey = (developerId: string, day: string) => `sale-digest:${developerId}:${day}`;

const SELLER_PAGE = 200;

/**
 * Queues yesterday's (UTC) digest for every seller whose setting is "daily" and who had paid orders that day: per
 * product and per currency, with the day's totals per currency. The outbox row's unique dedupe key is the claim, so
 * several instances, or several runs, queue one digest per seller per day. Returns how many were queued.
 */
export async function runSaleDigests(now: Date): Promise<number> {
  const db = getDb();
  const { day, from, to } = previousUtcDay(now);
  let queued = 0;
  let cursor: string | undefined;
  for (;;) {
    const sellers = await db.developer.findMany({
      where: { saleEmails: "daily", ...(cursor ? { id: { gt: cursor } } : {}) },
      select: { id: true, email: true },
      orderBy: { id: "asc" },
      take: SELLER_PAGE,
    });
    if (sellers.length === 0) break;
    cursor = sellers.at(-1)?.id;
    const done = new Set(
      (
        await db.emailMessage.findMany({
          where: { dedupeKey: { in: sellers.map((s) => digestKey(s.id, day)) } },
          select: { dedupeKey: true },
        })
      ).map((m) => m.dedupeKey),
    );
    for (const seller of sellers) {
      if (done.has(digestKey(seller.id, day))) continue;
      const groups = await db.order.groupBy({
        by: ["productId", "currency"],
        where: { paidAt: { gte: from, lt: to }, product: { developerId: seller.id } },
        _sum: { amountCents: true },
        _count: { _all: true },
      });
      if (groups.length === 0) continue;
      const names = new Map(
        (await db.product.findMany({ where: { id: { in: groups.map((g) => g.productId) } }, select: { id: true, name: true } })).map((p) => [
          p.id,
          p.name,
        ]),
      );
      const totals = new Map<string, { currency: string; amountCents: number; orders: number }>();
      for (const g of groups) {
        const t = totals.get(g.currency) ?? { currency: g.currency, amountCents: 0, orders: 0 };
        t.amountCents += g._sum.amountCents ?? 0;
        t.orders += g._count._all;
        totals.set(g.currency, t);
      }
      const mail = saleDigestEmail({
        day,
        products: groups
          .map((g) => ({
            name: names.get(g.productId) ?? g.productId,
            orders: g._count._all,
            currency: g.currency,
            amountCents: g._sum.amountCents ?? 0,
          }))
          .sort((a, b) => b.orders - a.orders || a.name.localeCompare(b.name)),
        totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)),
      });
      await enqueueEmail(db, { to: seller.email, ...mail, kind: "sale-digest", dedupeKey: digestKey(seller.id, day) });
      queued++;
    }
    if (sellers.length < SELLER_PAGE) break;
  }
  if (queued > 0) kickOutbox();
  return queued;
}

/** The day this process last finished digests for: the loop works once a day, then each tick is a comparison. */
const DONE_KEY = Symbol.for("indie-license-market.sale-digests.done");
const g = globalThis as unknown as Record<symbol, string | undefined>;

const loop = outboxLoop({
  key: "sale-digests",
  label: "sale digests",
  batch: Number.MAX_SAFE_INTEGER,
  deliver: async () => {
    const now = new Date();
    const { day } = previousUtcDay(now);
    if (g[DONE_KEY] === day) return { sent: 0, failed: 0 };
    const sent = await runSaleDigests(now);
    g[DONE_KEY] = day;
    return { sent, failed: 0 };
  },
});

/** Starts the daily sale digests' job loop (server.ts). */
export const startSaleDigests = (): (() => void) => loop.start();
