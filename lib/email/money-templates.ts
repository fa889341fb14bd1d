import { SERVICE_NAME } from "../versions.ts";
import { formatPrice } from "../pricing.ts";
import { absoluteUrl } from "../urls.ts";
import { escapeHtml, type RenderedEmail } from "./templates.ts";

/**
 * Mail about money going back: the refund notice to the buyer and the dispute notice to the seller. Same rules as
 * templates.ts (one inline-styled table, nothing fetched from another host, every value escaped); kept apart so the
 * two files can change independently.
 */
const SITE_NAME = SERVICE_NAME;
const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const INK = "#0f172a";
const MUTED = "#475569";
const FAINT = "#64748b";
const LINE = "#e2e8f0";

const oneLine = (value: string) => value.replace(/\s+/g, " ").trim();

/** An amount with its currency code, never ambiguous between dollars: "$12.50 USD", "€5.00 EUR". */
const moneyWithCode = (minor: number, currency: string) => formatPrice(minor, currency);

function page(title: string, paragraphs: string[], rows: Array<[string, string]>, footer: string): string {
  const p = (html: string) => `<p style="margin:0 0 16px 0;color:${MUTED};">${html}</p>`;
  const table = rows
    .map(
      ([k, v], i) =>
        `<tr><td style="padding:8px 12px 8px 0;${i ? `border-top:1px solid ${LINE};` : ""}color:${MUTED};font-size:14px;white-space:nowrap;">${escapeHtml(k)}</td>` +
        `<td style="padding:8px 0;${i ? `border-top:1px solid ${LINE};` : ""}font-size:14px;color:${INK};">${escapeHtml(v)}</td></tr>`,
    )
    .join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:0;background-color:#f1f5f9;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f1f5f9;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;width:100%;">
<tr><td style="padding:0 8px 16px 8px;font-family:${FONT};font-size:15px;font-weight:700;color:${INK};">${escapeHtml(SITE_NAME)}</td></tr>
<tr><td style="background-color:#ffffff;border:1px solid ${LINE};border-radius:12px;padding:32px 28px;font-family:${FONT};font-size:15px;line-height:24px;color:${INK};">
<h1 style="margin:0 0 12px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">${escapeHtml(title)}</h1>
${paragraphs.map((t) => p(escapeHtml(t))).join("\n")}
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">
${table}
</table>
</td></tr>
<tr><td style="padding:16px 8px 0 8px;font-family:${FONT};font-size:12px;line-height:18px;color:${FAINT};">${escapeHtml(footer)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

const text = (title: string, paragraphs: string[], rows: Array<[string, string]>, footer: string) =>
  [title, "", ...paragraphs.flatMap((t) => [t, ""]), ...rows.map(([k, v]) => `${k}: ${v}`), "", footer, ""].join("\n");

export interface RefundEmailData {
  productName: string;
  developerName: string;
  orderId: string;
  amountCents: number;
  currency: string;
  /** Everything paid has now gone back: the license is revoked. */
  full: boolean;
  reason: string;
  /** The order never had a license (its payment was refused, e.g. the seller was suspended before it arrived). */
  unlicensed?: boolean;
}

/** To the buyer: money went back to their payment method; a full refund ends the license, a partial one keeps it. */
export function refundEmail(d: RefundEmailData): RenderedEmail {
  const amount = moneyWithCode(d.amountCents, d.currency);
  const title = d.full ? `Your purchase of ${oneLine(d.productName)} was refunded` : `A partial refund for ${oneLine(d.productName)}`;
  const subject = oneLine(`Refund of ${amount} for ${d.productName}`);
  const paragraphs = [
    `${amount} is on its way back to the payment method you used. Banks usually show it within 5 to 10 business days.`,
    d.unlicensed
      ? "No license key was issued for this order."
      : d.full
        ? "Because the whole purchase was refunded, its license key no longer works: apps that check it will report that the purchase was refunded."
        : "Your license key keeps working: this was a partial refund.",
  ];
  const rows: Array<[string, string]> = [
    ["Product", d.productName],
    ["Seller", d.developerName],
    ["Refunded", amount],
    ["Reason", d.reason],
    ["Order", d.orderId],
  ];
  const footer = `${SITE_NAME} sends this e-mail about your order. Questions about the refund? Reply to the seller through ${absoluteUrl("/")}.`;
  return { subject, html: page(title, paragraphs, rows, footer), text: text(title, paragraphs, rows, footer) };
}

export interface DisputeEmailData {
  productName: string;
  orderId: string;
  amountCents: number;
  currency: string;
  disputeId: string;
  reason: string | null;
}

/** To the seller: a buyer disputed a payment with their bank; the license is suspended until the dispute closes. */
export function disputeEmail(d: DisputeEmailData): RenderedEmail {
  const amount = moneyWithCode(d.amountCents, d.currency);
  const title = `A payment for ${oneLine(d.productName)} is disputed`;
  const subject = oneLine(`Payment dispute: ${amount} for ${d.productName}`);
  const paragraphs = [
    "The buyer's bank opened a dispute (a chargeback) on this payment. The disputed amount is held back until the bank decides.",
    "The license from this order is suspended while the dispute is open. If the dispute is won, it works again; if it is lost, it stays revoked.",
  ];
  const rows: Array<[string, string]> = [
    ["Product", d.productName],
    ["Disputed", amount],
    ...(d.reason ? ([["Bank's reason", d.reason]] as Array<[string, string]>) : []),
    ["Order", d.orderId],
    ["Dispute", d.disputeId],
  ];
  const footer = `See the order in your dashboard: ${absoluteUrl(`/dashboard/orders/${d.orderId}`)}`;
  return { subject, html: page(title, paragraphs, rows, footer), text: text(title, paragraphs, rows, footer) };
}

/** The moments of a subscription the buyer hears about (lib/subscriptions/lifecycle.ts). */
export type SubscriptionMailKind =
  "renewed" | "reminder" | "payment_failed" | "recovered" | "canceled" | "expired" | "updates_renewed" | "plan_changed";

export interface SubscriptionEmailData {
  kind: SubscriptionMailKind;
  productName: string;
  developerName: string;
  subscriptionId: string;
  /** "month" | "year" */
  interval: string;
  /** What was charged ("renewed", "recovered"), or what the next charge will be ("reminder", "payment_failed"). */
  amountCents: number;
  currency: string;
  /** The paid period's end ("renewed", "recovered", "canceled"); the renewal date ("reminder"); the day the license stops ("payment_failed", "expired"). */
  date: Date;
  /** Where the buyer manages it (My licenses), or fixes the card. */
  manageUrl: string;
  /** The invoice a charge is ("renewed", "recovered"). */
  orderId?: string;
  /** "expired": whether a perpetual license for the versions paid for is kept. */
  keepsFallback?: boolean;
  /** "plan_changed": the new plan (seats, the price of a period) and what the change charged (> 0) or credited back (< 0). */
  plan?: { quantity: number; periodAmountCents: number; prorationCents: number };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** To the buyer, at each step of a subscription: a receipt, a reminder, a failed payment, a cancellation, the end. */
export function subscriptionEmail(d: SubscriptionEmailData): RenderedEmail {
  const amount = moneyWithCode(d.amountCents, d.currency);
  const name = oneLine(d.productName);
  const per = d.interval === "year" ? "year" : "month";
  const seats = d.plan?.quantity ?? 1;
  const proration = d.plan?.prorationCents ?? 0;
  const copy: Record<SubscriptionMailKind, { subject: string; title: string; paragraphs: string[] }> = {
    renewed: {
      subject: `Receipt: ${amount} for another ${per} of ${name}`,
      title: `Your ${name} subscription renewed`,
      paragraphs: [`We charged ${amount} for another ${per}. Your license key keeps working until ${day(d.date)}, and renews again then.`],
    },
    recovered: {
      subject: `Receipt: ${amount} for ${name}, payment received`,
      title: `Your payment for ${name} went through`,
      paragraphs: [`We charged ${amount}. Your subscription is in good standing again, and your license key works until ${day(d.date)}.`],
    },
    reminder: {
      subject: `${name} renews on ${day(d.date)} for ${amount}`,
      title: `Your ${name} subscription renews soon`,
      paragraphs: [`On ${day(d.date)} we will charge ${amount} for another ${per}. To change or cancel it before then, open My licenses.`],
    },
    payment_failed: {
      subject: `Action needed: the payment for ${name} failed`,
      title: `We could not charge ${amount} for ${name}`,
      paragraphs: [
        `Your card was declined when your subscription renewed. Your license key keeps working until ${day(d.date)}; after that apps will report the payment as past due.`,
        `Update your card on My licenses and we will charge it again at once: ${d.manageUrl}`,
      ],
    },
    canceled: {
      subject: `Your ${name} subscription is canceled`,
      title: `Your ${name} subscription will end on ${day(d.date)}`,
      paragraphs: [
        `Nothing more will be charged. Your license key keeps working until ${day(d.date)}. Changed your mind? Resume it on My licenses before then.`,
      ],
    },
    updates_renewed: {
      subject: `Receipt: ${amount} for another year of updates to ${name}`,
      title: `Your updates to ${name} are renewed`,
      paragraphs: [`We charged ${amount}. Your license gets every release published until ${day(d.date)}; it keeps working for good either way.`],
    },
    plan_changed: {
      subject: `Your ${name} plan changed`,
      title: `Your ${name} plan is changed`,
      paragraphs: [
        `From now on: ${seats} ${seats === 1 ? "seat" : "seats"}, ${moneyWithCode(d.plan?.periodAmountCents ?? 0, d.currency)} a ${per}, renewing on ${day(d.date)}.`,
        proration > 0
          ? `We charged ${moneyWithCode(proration, d.currency)} for the rest of the current period.`
          : proration < 0
            ? `The unused time, ${moneyWithCode(-proration, d.currency)}, is refunded to your card.`
            : "Nothing was charged for the change.",
      ],
    },
    expired: {
      subject: `Your ${name} subscription has ended`,
      title: `Your ${name} subscription has ended`,
      paragraphs: [
        d.keepsFallback
          ? "Your license key keeps working, for good, with the versions released while you paid. Newer versions need a new subscription."
          : "Your license key no longer works: apps that check it will report that it has expired. You can subscribe again from the product page.",
      ],
    },
  };
  const c = copy[d.kind];
  const rows: Array<[string, string]> = [
    ["Product", d.productName],
    ["Seller", d.developerName],
    ...(d.kind === "renewed" || d.kind === "recovered" || d.kind === "updates_renewed" ? ([["Charged", amount]] as Array<[string, string]>) : []),
    ...(d.kind === "plan_changed" && d.plan && d.plan.prorationCents !== 0
      ? ([[d.plan.prorationCents > 0 ? "Charged" : "Refunded", moneyWithCode(Math.abs(d.plan.prorationCents), d.currency)]] as Array<
          [string, string]
        >)
      : []),
    [d.kind === "updates_renewed" ? "License" : "Subscription", d.subscriptionId],
    ...(d.orderId ? ([["Invoice", d.orderId]] as Array<[string, string]>) : []),
  ];
  const footer = `${SITE_NAME} sends this e-mail about your subscription. Manage it at ${d.manageUrl}.`;
  return { subject: oneLine(c.subject), html: page(c.title, c.paragraphs, rows, footer), text: text(c.title, c.paragraphs, rows, footer) };
}
