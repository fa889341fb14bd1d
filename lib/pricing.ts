/** The platform's pricing, as published in the discovery and terms documents. The only place these numbers live. */
export const PRICING = {
  model: "percentage",
  transaction_fee_percent: 5,
  monthly_fee: 0,
  setup_fee: 0,
  sdk: "free, MIT license",
  self_hosting: "free",
  currency: "usd",
} as const;

/** The platform fee on an amount, rounded half up to the cent. */
export function platformFeeCents(amountCents: number): number {
  return Math.round((amountCents * PRICING.transaction_fee_percent) / 100);
}

// Building an Intl formatter costs far more than using one: keep one per currency.
const formatters = new Map<string, Intl.NumberFormat>();

export function formatPrice(cents: number, currency: string = PRICING.currency): string {
  const code = currency.toUpperCase();
  let f = formatters.get(code);
  if (!f) formatters.set(code, (f = new Intl.NumberFormat("en-US", { style: "currency", currency: code })));
  return f.format(cents / 100);
}
