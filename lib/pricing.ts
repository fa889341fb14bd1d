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

/** The currencies a seller may price a product in: lower-case ISO 4217, as stored. The one list (form, API, schema). */
export const SUPPORTED_CURRENCIES = ["usd", "eur", "gbp"] as const;

/** The seller's share of what the buyer pays, in percent. */
export const SELLER_SHARE_PERCENT = 100 - PRICING.transaction_fee_percent;

/**
 * The fee in words, the one wording pages, documents and tools use. The processor sentence is what Stripe documents
 * for destination charges (docs.stripe.com/connect/destination-charges: the platform's "account balance is debited
 * for the cost of the Stripe fees"), so Stripe's fee comes out of the platform's share and the seller's 95 % is whole.
 */
export const FEE_TERMS = {
  platform: `The platform keeps ${PRICING.transaction_fee_percent} % of what the buyer pays (after any coupon, before tax); the seller receives ${SELLER_SHARE_PERCENT} %.`,
  processor:
    "Sales are Stripe Connect destination charges: Stripe takes its processing fees from the platform's balance, so they come out of the platform's share, not the seller's.",
  testMode: "In test mode no money moves.",
} as const;

/** The platform fee on an amount, rounded half up to the cent. */
export function platformFeeCents(amountCents: number): number {
  return Math.round((amountCents * PRICING.transaction_fee_percent) / 100);
}

// Building an Intl formatter costs far more than using one: keep one per currency.
const formatters = new Map<string, Intl.NumberFormat>();

function formatter(code: string): Intl.NumberFormat {
  let f = formatters.get(code);
  if (!f) formatters.set(code, (f = new Intl.NumberFormat("en-US", { style: "currency", currency: code })));
  return f;
}

/** How many minor units make one major unit: 2 for usd/eur/gbp, 0 for jpy (Intl knows each currency's precision). */
export function minorDigits(currency: string): number {
  return formatter(currency.toUpperCase()).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units as a plain decimal in the currency's own precision, exact (no float): 1999 usd → "19.99", 500 jpy → "500". */
export function minorToDecimal(minor: number, currency: string): string {
  const digits = minorDigits(currency);
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor)
    .toString()
    .padStart(digits + 1, "0");
  return digits === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/**
 * A price as every page, e-mail, receipt and API shows it: the symbol, the amount and always the ISO code, so "$"
 * is never left to mean US, Canadian or Australian dollars ("$12.00 USD", "€12.00 EUR", "£12.00 GBP"). Amounts
 * are minor units of `currency`; amounts in different currencies are never added before calling this.
 */
export function formatPrice(minor: number, currency: string = PRICING.currency): string {
  const code = currency.toUpperCase();
  return `${formatter(code).format(minor / 10 ** minorDigits(code))} ${code}`;
}

/** "USD — US dollar": how the seller's form names a currency. */
export function currencyLabel(currency: string): string {
  const code = currency.toUpperCase();
  const name = new Intl.DisplayNames("en", { type: "currency" }).of(code) ?? code;
  return `${code} — ${name}`;
}

/** What a page or mail says about tax the payment provider did not calculate (test mode, Stripe Tax off). */
export const TAX_NOT_CALCULATED = "not calculated";

/** The money columns of an order (Prisma's Order has them all). */
export interface OrderMoney {
  currency: string;
  quantity: number;
  subtotalCents: number;
  discountCents: number;
  couponCode: string | null;
  amountCents: number;
  taxCents: number | null;
  refundedCents?: number;
}

/**
 * An order's charges as every page, e-mail and receipt shows them, each amount with its code: quantity, unit price,
 * subtotal, the coupon's discount, tax ("not calculated" when the provider did not calculate it, never a made-up
 * zero) and the total the buyer paid (what the order is for plus tax). Orders from before seats and coupons had no
 * subtotal of their own: theirs is what was paid.
 */
export function orderCharges(o: OrderMoney) {
  const f = (minor: number) => formatPrice(minor, o.currency);
  const subtotal = o.subtotalCents > 0 ? o.subtotalCents : o.amountCents + o.discountCents;
  const quantity = Math.max(1, o.quantity);
  return {
    currency: o.currency,
    quantity,
    unit: f(Math.round(subtotal / quantity)),
    subtotal: f(subtotal),
    discount: o.discountCents > 0 ? f(o.discountCents) : null,
    couponCode: o.couponCode,
    tax: o.taxCents === null ? TAX_NOT_CALCULATED : f(o.taxCents),
    taxCalculated: o.taxCents !== null,
    total: f(o.amountCents + (o.taxCents ?? 0)),
    refunded: o.refundedCents && o.refundedCents > 0 ? f(o.refundedCents) : null,
  };
}
export type OrderCharges = ReturnType<typeof orderCharges>;
