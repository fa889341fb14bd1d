import { getDb } from "../db.ts";
import { DEFAULT_LIMIT } from "./search.ts";

export interface AdminPaymentEvent {
  id: string;
  provider: string;
  type: string;
  order_id: string | null;
  account_id: string | null;
  outcome: string | null;
  processed_at: string;
}

/** The latest payment events received (Stripe webhooks and test-mode payments), newest first; `type` matches a prefix. */
export async function listPaymentEvents(filter: { type?: string; order_id?: string; limit?: number } = {}): Promise<AdminPaymentEvent[]> {
  const rows = await getDb().paymentEvent.findMany({
    where: { ...(filter.type ? { type: { startsWith: filter.type } } : {}), ...(filter.order_id ? { orderId: filter.order_id } : {}) },
    orderBy: [{ processedAt: "desc" }, { id: "asc" }],
    take: filter.limit ?? DEFAULT_LIMIT,
  });
  return rows.map((e) => ({
    id: e.id,
    provider: e.provider,
    type: e.type,
    order_id: e.orderId,
    account_id: e.accountId,
    outcome: e.outcome,
    processed_at: e.processedAt.toISOString(),
  }));
}

/** The event types seen so far, for the filter. */
export async function paymentEventTypes(): Promise<string[]> {
  const groups = await getDb().paymentEvent.groupBy({ by: ["type"], orderBy: { type: "asc" } });
  return groups.map((g) => g.type);
}
