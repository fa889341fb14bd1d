/**
 * The kinds of money movement the ledger records; the one list. Signs are from the seller's point of view (see the
 * LedgerEntry model): sale, fee_refund and dispute_reversal are positive; platform_fee, refund, dispute and payout
 * are negative.
 */
export const LEDGER_KINDS = ["sale", "platform_fee", "refund", "fee_refund", "dispute", "dispute_reversal", "payout"] as const;

export type LedgerKind = (typeof LEDGER_KINDS)[number];
