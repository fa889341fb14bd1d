/**
 * The kinds of money movement the ledger records; the one list. Signs are from the seller's point of view (see the
 * LedgerEntry model): sale (the list price × quantity), fee_refund, dispute_reversal and tax (collected on top of the
 * price, for whoever is liable to remit it) are positive; discount (a coupon's reduction of the sale), platform_fee,
 * refund, tax_refund, dispute and payout are negative.
 */
export const LEDGER_KINDS = [
  "sale",
  "discount",
  "platform_fee",
  "tax",
  "refund",
  "fee_refund",
  "tax_refund",
  "dispute",
  "dispute_reversal",
  "payout",
] as const;

export type LedgerKind = (typeof LEDGER_KINDS)[number];
