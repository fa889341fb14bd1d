import { SERVICE_NAME } from "../versions.ts";
import { formatPrice } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";
import { escapeHtml, type RenderedEmail } from "./templates.ts";

/**
 * Mail to sellers about their account and their money: each sale, the daily digest of sales, a suspension with the
 * operator's reason, a dispute's outcome. Same rules as templates.ts: one inline-styled table, nothing fetched from
 * another host, every value escaped (product names and the operator's reason are typed by people).
 */
const SITE_NAME = SERVICE_NAME;
const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const INK = "#0f172a";
const MUTED = "#475569";
const FAINT = "#64748b";
const LINE = "#e2e8f0";
const ACCENT = "#4f46e5";

const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();

type Rows = Array<[string, string]>;

interface Message {
  title: string;
  paragraphs: string[];
  rows: Rows;
  /** The one link the message is about (the order, the dashboard), as a button and in full under it. */
  link: { url: string; label: string };
  footer: string;
}

function html(m: Message): string {
  const url = escapeHtml(m.link.url);
  const table = m.rows
    .map(
      ([k, v], i) =>
        `<tr><td style="padding:8px 12px 8px 0;${i ? `border-top:1px solid ${LINE};` : ""}color:${MUTED};font-size:14px;white-space:nowrap;vertical-align:top;">${escapeHtml(k)}</td>` +
        `<td style="padding:8px 0;${i ? `border-top:1px solid ${LINE};` : ""}font-size:14px;color:${INK};vertical-align:top;">${escapeHtml(v)}</td></tr>`,
    )
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(m.title)}</title></head>
<body style="margin:0;padding:0;background-color:#f1f5f9;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f1f5f9;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;width:100%;">
<tr><td style="padding:0 8px 16px 8px;font-family:${FONT};font-size:15px;font-weight:700;color:${INK};">${escapeHtml(SITE_NAME)}</td></tr>
<tr><td style="background-color:#ffffff;border:1px solid ${LINE};border-radius:12px;padding:32px 28px;font-family:${FONT};font-size:15px;line-height:24px;color:${INK};">
<h1 style="margin:0 0 12px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">${escapeHtml(m.title)}</h1>
${m.paragraphs.map((t) => `<p style="margin:0 0 16px 0;color:${MUTED};">${escapeHtml(t)}</p>`).join("\n")}
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 20px 0;">
${table}
</table>
<p style="margin:0 0 8px 0;"><a href="${url}" style="display:inline-block;padding:12px 22px;border-radius:8px;background-color:${ACCENT};color:#ffffff;font-weight:600;text-decoration:none;">${escapeHtml(m.link.label)}</a></p>
<p style="margin:0;"><a href="${url}" style="color:${FAINT};font-size:13px;line-height:20px;word-break:break-all;">${url}</a></p>
</td></tr>
<tr><td style="padding:16px 8px 0 8px;font-family:${FONT};font-size:12px;line-height:18px;color:${FAINT};">${escapeHtml(m.footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

function render(subject: string, m: Message): RenderedEmail {
  const width = Math.max(0, ...m.rows.map(([k]) => k.length)) + 2;
  const text = [
    m.title,
    "",
    ...m.paragraphs.flatMap((t) => [t, ""]),
    ...m.rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`),
    "",
    `${m.link.label}: ${m.link.url}`,
    "",
    "-- ",
    m.footer,
    "",
  ].join("\n");
  return { subject: oneLine(subject), html: html(m), text };
}

/**
 * A buyer's address as a sale e-mail shows it: the first character of the local part, then "***@" and the domain
 * ("j***@example.com"). The full address is on the order's page in the dashboard, behind the seller's sign-in; a
 * mail is forwarded, kept in other inboxes and scanned, so it carries no more of the buyer's address than the seller
 * needs to recognise the order.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "***";
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** "1 seat", "3 seats". */
const seatsWord = (n: number) => `${n} ${n === 1 ? "seat" : "seats"}`;

const orderUrl = (orderId: string) => absoluteUrl(`/dashboard/orders/${encodeURIComponent(orderId)}`);
const SETTING_NOTE = `You get this e-mail because your sale e-mails are set to "each sale". Change it under Profile in your dashboard: ${absoluteUrl("/dashboard/profile#sale-emails")}`;

/** What kind of payment a paid order is, as a sale e-mail names it. */
export type SaleKind = "sale" | "renewal" | "updates_renewal" | "plan_change";

export interface SaleEmailData {
  kind: SaleKind;
  productName: string;
  orderId: string;
  /** What the buyer paid, in minor units of `currency` (tax not included). */
  amountCents: number;
  currency: string;
  /** Seats bought (the order's quantity). */
  seats: number;
  /** The machines the license allows (seats × the product's machines per seat); null when no license was issued. */
  machines: number | null;
  buyerEmail: string;
  couponCode: string | null;
}

const SALE_TITLES: Record<SaleKind, (name: string) => string> = {
  sale: (n) => `You sold ${n}`,
  renewal: (n) => `A subscription to ${n} renewed`,
  updates_renewal: (n) => `A buyer renewed updates to ${n}`,
  plan_change: (n) => `A buyer changed their plan for ${n}`,
};

/** To the seller, on each paid order of theirs (when their setting is "each"). */
export function saleEmail(d: SaleEmailData): RenderedEmail {
  const amount = formatPrice(d.amountCents, d.currency);
  const name = oneLine(d.productName);
  const rows: Rows = [
    ["Product", d.productName],
    ["Amount", amount],
    ["Seats", d.machines !== null && d.machines !== d.seats ? `${seatsWord(d.seats)} · ${d.machines} machines` : seatsWord(d.seats)],
    ...(d.couponCode ? ([["Coupon", d.couponCode]] as Rows) : []),
    ["Buyer", maskEmail(d.buyerEmail)],
    ["Order", d.orderId],
  ];
  return render(`${d.kind === "sale" ? "New sale" : "Payment received"}: ${name} for ${amount}`, {
    title: SALE_TITLES[d.kind](name),
    paragraphs: [`${amount} was paid. The buyer's full address and the order's money (fee, tax, payout) are on the order's page.`],
    rows,
    link: { url: orderUrl(d.orderId), label: "Open the order" },
    footer: SETTING_NOTE,
  });
}

export interface SaleDigestEmailData {
  /** The UTC day the digest covers, "YYYY-MM-DD". */
  day: string;
  /** Paid orders of the day, one line per product (most sold first). */
  products: Array<{ name: string; orders: number; currency: string; amountCents: number }>;
  /** The day's takings per currency. */
  totals: Array<{ currency: string; amountCents: number; orders: number }>;
}

const ordersWord = (n: number) => `${n} ${n === 1 ? "order" : "orders"}`;

/** To the seller whose setting is "daily": one message a day with the day's paid orders and totals per currency. */
export function saleDigestEmail(d: SaleDigestEmailData): RenderedEmail {
  const orders = d.totals.reduce((n, t) => n + t.orders, 0);
  const totals = d.totals.map((t) => formatPrice(t.amountCents, t.currency));
  return render(`Your sales on ${d.day}: ${ordersWord(orders)}, ${totals.join(" + ")}`, {
    title: `Your sales on ${d.day}`,
    paragraphs: [
      `${ordersWord(orders)} paid between 00:00 and 24:00 UTC. Amounts are what buyers paid, before fees and without tax; each currency is totalled on its own.`,
    ],
    rows: [
      ...d.products.map((p) => [p.name, `${ordersWord(p.orders)} · ${formatPrice(p.amountCents, p.currency)}`] as [string, string]),
      ...d.totals.map(
        (t) => [`Total ${t.currency.toUpperCase()}`, `${ordersWord(t.orders)} · ${formatPrice(t.amountCents, t.currency)}`] as [string, string],
      ),
    ],
    link: { url: absoluteUrl("/dashboard/sales"), label: "Open Sales" },
    footer: `You get this e-mail because your sale e-mails are set to "daily digest". Change it under Profile in your dashboard: ${absoluteUrl("/dashboard/profile#sale-emails")}`,
  });
}

export interface SuspensionEmailData {
  sellerName: string;
  /** The operator's reason, as typed in the operator console. */
  reason: string;
}

/** To the seller, when the operator suspends their account. */
export function suspensionEmail(d: SuspensionEmailData): RenderedEmail {
  return render(`Your seller account on ${SITE_NAME} is suspended`, {
    title: "Your seller account is suspended",
    paragraphs: [
      `Hello ${d.sellerName}, the operator of ${SITE_NAME} suspended your seller account.`,
      "Your listed products are hidden from the store and agents, and you cannot publish listings. Licenses you already sold keep working.",
      "To ask about it, reply to the operator through the contact page.",
    ],
    rows: [["Operator's reason", d.reason]],
    link: { url: absoluteUrl("/contact"), label: "Contact the operator" },
    footer: `You get this e-mail because you sell on ${SITE_NAME}.`,
  });
}

export interface DisputeClosedEmailData {
  productName: string;
  orderId: string;
  amountCents: number;
  currency: string;
  disputeId: string;
  outcome: "won" | "lost";
}

/** To the seller, when a dispute on one of their payments closes. */
export function disputeClosedEmail(d: DisputeClosedEmailData): RenderedEmail {
  const amount = formatPrice(d.amountCents, d.currency);
  const name = oneLine(d.productName);
  const won = d.outcome === "won";
  return render(`Dispute ${won ? "won" : "lost"}: ${amount} for ${name}`, {
    title: won ? `You won the dispute on ${name}` : `You lost the dispute on ${name}`,
    paragraphs: won
      ? ["The bank decided for you: the disputed amount stays yours, and the license from this order works again."]
      : ["The bank decided for the buyer: the disputed amount went back to them, and the license from this order stays revoked."],
    rows: [
      ["Product", d.productName],
      [won ? "Kept" : "Lost", amount],
      ["Order", d.orderId],
      ["Dispute", d.disputeId],
    ],
    link: { url: orderUrl(d.orderId), label: "Open the order" },
    footer: `You get this e-mail because you sell on ${SITE_NAME}.`,
  });
}
