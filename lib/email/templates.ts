import { SERVICE_NAME } from "../versions.ts";
import { absoluteUrl } from "../urls.ts";
import type { OrderCharges } from "../pricing.ts";

/**
 * The messages the service sends, as { subject, html, text }. Mail clients ignore <style> blocks and strip most
 * CSS, so the HTML is one centred table of at most 600 px with inline styles only, system fonts and no images:
 * nothing is fetched from another host when the message is opened. Every interpolated value is escaped; product
 * and developer names come from sellers.
 */
export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

const SITE_NAME = SERVICE_NAME;

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML element content and for double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** A subject is one header line: no line breaks (header injection, broken subjects), no runs of whitespace. */
function oneLine(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/**
 * A link target that is always http(s): absolute http(s) URLs pass, anything else (a relative path, or a seller's
 * `javascript:` URL) becomes a path on this deployment.
 */
function href(url: string): string {
  return absoluteUrl(url.trim());
}

// Colours and type, shared by both messages (Tailwind's slate and indigo, matching the site).
const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono','Courier New',monospace";
const INK = "#0f172a";
const MUTED = "#475569";
const FAINT = "#64748b";
const LINE = "#e2e8f0";
const ACCENT = "#4f46e5";

function layout(opts: { title: string; preheader: string; body: string; footer: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="supported-color-schemes" content="light">
<title>${escapeHtml(opts.title)}</title>
</head>
<body style="margin:0;padding:0;background-color:#f1f5f9;">
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;font-size:1px;line-height:1px;color:#f1f5f9;">${escapeHtml(opts.preheader)}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f1f5f9;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:600px;width:100%;">
<tr><td style="padding:0 8px 16px 8px;font-family:${FONT};font-size:15px;font-weight:700;color:${INK};">${escapeHtml(SITE_NAME)}</td></tr>
<tr><td style="background-color:#ffffff;border:1px solid ${LINE};border-radius:12px;padding:32px 28px;font-family:${FONT};font-size:15px;line-height:24px;color:${INK};">
${opts.body}
</td></tr>
<tr><td style="padding:16px 8px 0 8px;font-family:${FONT};font-size:12px;line-height:18px;color:${FAINT};">
${opts.footer}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

const p = (html: string, style = "") => `<p style="margin:0 0 16px 0;${style}">${html}</p>`;
const h2 = (text: string) => `<h2 style="margin:28px 0 8px 0;font-size:16px;line-height:24px;font-weight:700;color:${INK};">${escapeHtml(text)}</h2>`;
const a = (url: string, label: string) =>
  `<a href="${escapeHtml(href(url))}" style="color:${ACCENT};text-decoration:underline;">${escapeHtml(label)}</a>`;

function button(url: string, label: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 12px 0;">
<tr><td style="border-radius:8px;background-color:${ACCENT};">
<a href="${escapeHtml(href(url))}" style="display:inline-block;padding:12px 22px;font-family:${FONT};font-size:15px;font-weight:600;line-height:20px;color:#ffffff;text-decoration:none;border-radius:8px;">${escapeHtml(label)}</a>
</td></tr>
</table>`;
}

/** The URL printed in full under a button, for clients that do not show buttons and for copying. */
const rawLink = (url: string) =>
  p(`<a href="${escapeHtml(href(url))}" style="color:${FAINT};font-size:13px;line-height:20px;word-break:break-all;">${escapeHtml(href(url))}</a>`);

function detailRows(rows: Array<[string, string]>): string {
  const cells = rows
    .map(
      ([label, value], i) =>
        `<tr><td style="padding:8px 12px 8px 0;${i ? `border-top:1px solid ${LINE};` : ""}color:${MUTED};font-size:14px;white-space:nowrap;vertical-align:top;">${escapeHtml(label)}</td>` +
        `<td style="padding:8px 0;${i ? `border-top:1px solid ${LINE};` : ""}font-size:14px;color:${INK};vertical-align:top;">${escapeHtml(value)}</td></tr>`,
    )
    .join("\n");
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 8px 0;">\n${cells}\n</table>`;
}

const machines = (n: number) => `${n} ${n === 1 ? "machine" : "machines"}`;

export interface LicenseEmailData {
  buyerEmail: string;
  productName: string;
  developerName: string;
  licenseKey: string;
  maxMachines: number;
  pluginId: string;
  /**
   * This site's license-gated download link (`downloadPath()` in lib/marketplace/get-download.ts). A seller's own URL
   * is never linked from our mail: anything not on this site is replaced by the buyer's licenses page.
   */
  downloadUrl: string;
  /**
   * The newest release the license is entitled to, with each build's license-gated link (lib/updates/mail-downloads.ts):
   * when present, the mail links these builds instead of `downloadUrl`.
   */
  release?: MailRelease | null;
  /**
   * Where the holder opens the signed receipt: a page on this site whose URL holds no key (My licenses). A URL with
   * the key in it (GET /api/receipt?key=…) is never put in a mail — mail scanners, forwards and logs would keep the
   * key — and is replaced by My licenses (see receiptLink).
   */
  receiptUrl: string;
  productPageUrl: string;
  orderId: string;
  /** The price paid, formatted with its code ("$49.00 USD"); "Complimentary" for a gift. */
  amountDisplay: string;
  /**
   * A purchase's charges (lib/pricing.ts orderCharges): quantity, subtotal, discount with the coupon code, tax and the
   * total paid, each with its currency code. Without it the mail shows `amountDisplay` alone.
   */
  charges?: OrderCharges;
  /** "complimentary": a seller sent this license; the mail says it is sent on the seller's behalf. Default "purchase". */
  source?: "purchase" | "complimentary";
}

/**
 * The receipt holds the license key and the holder's address, so a mail never calls it shareable and never links it
 * by a URL that carries the key: such a URL (or one off this site) becomes `fallback`, the licenses page.
 */
function receiptLink(url: string, licenseKey: string, fallback: string): string {
  const target = ownLink(url, fallback);
  const query = new URL(target).searchParams;
  const compact = licenseKey.replace(/-/g, "").toUpperCase();
  const holdsKey = query.has("key") || target.toUpperCase().replace(/-/g, "").includes(compact);
  return holdsKey ? fallback : target;
}

function receiptWording(gift: boolean): { what: string; private: string } {
  return gift
    ? {
        what: "The signed receipt shows that the license is genuine and whether it is active.",
        private: "It contains the license key and your e-mail address, so keep it private like the key: whoever has it can use the seats.",
      }
    : {
        what: "Your signed receipt proves the purchase and shows whether the license is active.",
        private: "It contains your license key and e-mail address, so keep it private like the key: whoever has it can use your seats.",
      };
}

/** A link on this deployment, or `fallback` (also on this deployment) for anything that would leave it. */
function ownLink(url: string, fallback: string): string {
  const target = href(url);
  return target.startsWith(absoluteUrl("/")) ? target : fallback;
}

/** A release's builds as a mail links them (lib/updates/mail-downloads.ts): each link license-gated, on this site. */
interface MailRelease {
  version: string;
  files: Array<{ label: string; url: string }>;
}

/** The builds to link, each kept to this site (ownLink); null when there are none (the mail links one download then). */
function ownRelease(release: MailRelease | null | undefined, fallback: string): MailRelease | null {
  return release?.files.length ? { ...release, files: release.files.map((f) => ({ ...f, url: ownLink(f.url, fallback) })) } : null;
}

/** The build list in HTML: the version, then one link per build. License, trial and bundle mails say it alike. */
function releaseHtml(release: MailRelease, what: string): string[] {
  return [
    p(`Version ${escapeHtml(release.version)}. Choose the build for your system; each link checks this ${what} first.`, `color:${MUTED};`),
    `<ul style="margin:0 0 16px 0;padding:0 0 0 22px;color:${INK};">\n${release.files.map((f) => `<li style="margin:0 0 6px 0;">${a(f.url, f.label)}</li>`).join("\n")}\n</ul>`,
  ];
}

/** The same list in the text part. */
function releaseText(release: MailRelease, what: string): string[] {
  return [
    `Version ${release.version}. Choose the build for your system; each link checks this ${what} first:`,
    ...release.files.flatMap((f) => [`${f.label}:`, `  ${f.url}`]),
  ];
}

/**
 * What the buyer paid, one row per line: quantity × unit price, subtotal, the coupon's discount, tax ("not
 * calculated" when none was) and the total, or the one amount when the charges are not known (a gift, older mail).
 */
function chargeRows(d: Pick<LicenseEmailData, "charges" | "amountDisplay">, gift: boolean): [string, string][] {
  const c = d.charges;
  if (gift || !c) return [[gift ? "Price" : "Price paid", d.amountDisplay]];
  return [
    ...(c.quantity > 1 ? [["Quantity", `${c.quantity} × ${c.unit}`] as [string, string]] : []),
    ...(c.discount
      ? [["Subtotal", c.subtotal] as [string, string], ["Discount", `−${c.discount}${c.couponCode ? ` (${c.couponCode})` : ""}`] as [string, string]]
      : []),
    ["Tax", c.tax],
    ["Total paid", c.total],
  ];
}

/**
 * The message a license holder gets: the key, where to download, how to activate, the receipt. After a purchase it
 * thanks the buyer; for a complimentary license it says, in the platform's voice, that it is sent on behalf of the
 * seller, and marks the product and seller names as the seller's own words. The download goes through this site's
 * license-gated link, never straight to a URL a seller typed.
 */
export function licenseEmail(d: LicenseEmailData): RenderedEmail {
  const gift = d.source === "complimentary";
  const licensesUrl = absoluteUrl("/licenses");
  const downloadUrl = ownLink(d.downloadUrl, licensesUrl);
  const release = ownRelease(d.release, licensesUrl);
  const receiptUrl = receiptLink(d.receiptUrl, d.licenseKey, licensesUrl);
  const receiptText = receiptWording(gift);
  const subject = gift
    ? oneLine(`License key for "${d.productName}", sent on behalf of ${d.developerName} via ${SITE_NAME}`)
    : oneLine(`Your license key for ${d.productName}`);
  const seats = machines(d.maxMachines);
  const onBehalf = `${SITE_NAME} sends this e-mail on behalf of ${d.developerName}, a seller on ${SITE_NAME}, who gave ${d.buyerEmail} a complimentary license.`;
  const sellerWords = `The product name "${d.productName}" and the seller name "${d.developerName}" are written by the seller, not by ${SITE_NAME}.`;
  const unexpected = `Not expecting this? You can ignore this e-mail: no account was opened and nothing was charged. ${SITE_NAME} never asks for passwords or payment details by e-mail.`;

  const intro = gift
    ? [
        `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">A complimentary license, sent on behalf of a seller</h1>`,
        p(escapeHtml(onBehalf), `color:${MUTED};`),
        p(escapeHtml(sellerWords), `font-size:13px;line-height:20px;color:${FAINT};`),
        p("Here is the license key:", `color:${MUTED};`),
      ]
    : [
        `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">Thanks for buying ${escapeHtml(d.productName)}</h1>`,
        p(`${escapeHtml(d.productName)} by ${escapeHtml(d.developerName)} is yours. Here is your license key:`, `color:${MUTED};`),
      ];

  const body = [
    ...intro,
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 8px 0;">
<tr><td align="center" style="background-color:#eef2ff;border:1px solid #c7d2fe;border-radius:10px;padding:18px 12px;">
<div style="font-family:${MONO};font-size:20px;line-height:30px;font-weight:700;letter-spacing:1px;color:${INK};">${escapeHtml(d.licenseKey)}</div>
</td></tr>
</table>`,
    p(`Keep this e-mail: the key is all you need to activate ${escapeHtml(d.productName)}.`, `font-size:13px;line-height:20px;color:${FAINT};`),
    detailRows([
      [gift ? "Product (as the seller names it)" : "Product", `${d.productName} by ${d.developerName}`],
      ...chargeRows(d, gift),
      ["Machines", `Up to ${seats} at a time`],
      ["Licensed to", d.buyerEmail],
    ]),
    h2("Download"),
    ...(release
      ? releaseHtml(release, "license")
      : [
          gift
            ? p(
                `The link opens on ${escapeHtml(SITE_NAME)}, checks this license, then hands you to the seller's own download.`,
                `font-size:13px;line-height:20px;color:${FAINT};`,
              )
            : "",
          button(downloadUrl, `Download ${oneLine(d.productName)}`),
          rawLink(downloadUrl),
        ]),
    h2("How to activate"),
    `<ol style="margin:0 0 16px 0;padding:0 0 0 22px;color:${INK};">
<li style="margin:0 0 6px 0;">Install ${escapeHtml(d.productName)} and open it.</li>
<li style="margin:0 0 6px 0;">On first launch it asks for your license key: paste the key above.</li>
<li style="margin:0 0 6px 0;">The key is bound to that machine. You can use it on up to ${escapeHtml(seats)} at the same time.</li>
</ol>`,
    p(`Changing computers? Release the old machine from inside the app, or from ${a(licensesUrl, "My licenses")}, then activate on the new one.`),
    h2("Receipt"),
    p(`${receiptText.what} ${escapeHtml(receiptText.private)} Open it from ${a(receiptUrl, "your licenses page")}.`),
    p(`More about the product: ${a(d.productPageUrl, d.productPageUrl)}`, gift ? "" : "margin:0;"),
    gift ? p(escapeHtml(unexpected), `margin:0;font-size:13px;line-height:20px;color:${FAINT};`) : "",
  ]
    .filter(Boolean)
    .join("\n");

  const footer = gift
    ? [
        `License ${escapeHtml(d.orderId)} · Product ID ${escapeHtml(d.pluginId)}.`,
        `<br>You received this e-mail because a seller on ${escapeHtml(SITE_NAME)} entered ${escapeHtml(d.buyerEmail)} as the recipient of a complimentary license; ${escapeHtml(SITE_NAME)} sent it on the seller's behalf.`,
      ].join("")
    : [
        `Order ${escapeHtml(d.orderId)} · Product ID ${escapeHtml(d.pluginId)} — quote the order number if you contact support.`,
        `<br>You received this e-mail because ${escapeHtml(d.buyerEmail)} bought a license on ${escapeHtml(SITE_NAME)}.`,
      ].join("");

  const text = [
    ...(gift
      ? ["A complimentary license, sent on behalf of a seller", "", onBehalf, sellerWords, "", "Here is the license key:"]
      : [`Thanks for buying ${d.productName}`, "", `${d.productName} by ${d.developerName} is yours. Here is your license key:`]),
    "",
    `    ${d.licenseKey}`,
    "",
    `Product:      ${d.productName} by ${d.developerName}`,
    ...chargeRows(d, gift).map(([label, value]) => `${`${label}:`.padEnd(13)} ${value}`),
    `Machines:     up to ${seats} at a time`,
    `Licensed to:  ${d.buyerEmail}`,
    "",
    "DOWNLOAD",
    ...(release
      ? releaseText(release, "license")
      : [...(gift ? [`The link opens on ${SITE_NAME}, checks this license, then hands you to the seller's own download:`] : []), downloadUrl]),
    "",
    "HOW TO ACTIVATE",
    `1. Install ${d.productName} and open it.`,
    "2. On first launch it asks for your license key: paste the key above.",
    `3. The key is bound to that machine. You can use it on up to ${seats} at the same time.`,
    "",
    "Changing computers? Release the old machine from inside the app, or from My licenses, then activate on the new one:",
    licensesUrl,
    "",
    "RECEIPT",
    `${receiptText.what} ${receiptText.private} Open it from your licenses page:`,
    receiptUrl,
    "",
    `More about the product: ${href(d.productPageUrl)}`,
    ...(gift ? ["", unexpected] : []),
    "",
    "-- ",
    ...(gift
      ? [
          `License ${d.orderId} · Product ID ${d.pluginId}.`,
          `You received this e-mail because a seller on ${SITE_NAME} entered ${d.buyerEmail} as the recipient of a complimentary license; ${SITE_NAME} sent it on the seller's behalf.`,
        ]
      : [
          `Order ${d.orderId} · Product ID ${d.pluginId}. Quote the order number if you contact support.`,
          `You received this e-mail because ${d.buyerEmail} bought a license on ${SITE_NAME}.`,
        ]),
    "",
  ].join("\n");

  const preheader = gift
    ? `Sent on behalf of ${d.developerName}: a license key for ${d.productName}.`
    : `Your key for ${d.productName}, the download link and how to activate.`;
  return { subject, html: layout({ title: subject, preheader, body, footer }), text };
}

export interface SignInEmailData {
  email: string;
  url: string;
  purpose: "licenses" | "dashboard";
  expiresMinutes: number;
}

const PURPOSES = {
  licenses: { what: "your licenses", action: "See my licenses", subject: `Sign in to see your licenses on ${SITE_NAME}` },
  dashboard: { what: "your seller dashboard", action: "Open my dashboard", subject: `Sign in to your ${SITE_NAME} dashboard` },
} as const;

/** A magic sign-in link. */
export function signInEmail(d: SignInEmailData): RenderedEmail {
  const purpose = PURPOSES[d.purpose];
  const subject = oneLine(purpose.subject);
  const minutes = `${d.expiresMinutes} ${d.expiresMinutes === 1 ? "minute" : "minutes"}`;
  const body = [
    `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">Sign in to ${escapeHtml(purpose.what)}</h1>`,
    p(`Use the button below to sign in as <strong>${escapeHtml(d.email)}</strong>. The link expires in ${escapeHtml(minutes)}.`, `color:${MUTED};`),
    button(d.url, purpose.action),
    rawLink(d.url),
    p(
      "If you did not ask to sign in, ignore this e-mail: nobody can sign in without this link.",
      `margin:0;font-size:13px;line-height:20px;color:${FAINT};`,
    ),
  ].join("\n");
  const footer = `You received this e-mail because someone asked for a sign-in link for ${escapeHtml(d.email)} on ${escapeHtml(SITE_NAME)}.`;
  const text = [
    `Sign in to ${purpose.what}`,
    "",
    `Open this link to sign in as ${d.email}. It expires in ${minutes}:`,
    "",
    href(d.url),
    "",
    "If you did not ask to sign in, ignore this e-mail: nobody can sign in without this link.",
    "",
    "-- ",
    `You received this e-mail because someone asked for a sign-in link for ${d.email} on ${SITE_NAME}.`,
    "",
  ].join("\n");
  return { subject, html: layout({ title: subject, preheader: `Your sign-in link expires in ${minutes}.`, body, footer }), text };
}

export interface TrialEmailData {
  buyerEmail: string;
  productName: string;
  developerName: string;
  licenseKey: string;
  maxMachines: number;
  pluginId: string;
  /** This site's license-gated download link (`downloadPath()` in lib/marketplace/get-download.ts), never a seller's URL. */
  downloadUrl: string;
  productPageUrl: string;
  /** When the trial ends. */
  expiresAt: Date;
  /** The newest release the trial may download, each build's link license-gated: linked instead of `downloadUrl`. */
  release?: MailRelease | null;
}

/** The trial key, sent only to the address the trial is for (the API never shows it to the caller). */
export function trialEmail(d: TrialEmailData): RenderedEmail {
  const subject = oneLine(`Your trial key for ${d.productName}`);
  const seats = machines(d.maxMachines);
  const ends = d.expiresAt.toISOString().slice(0, 10);
  const release = ownRelease(d.release, absoluteUrl("/licenses"));
  const body = [
    `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">Your ${escapeHtml(d.productName)} trial</h1>`,
    p(
      `Here is your trial key for ${escapeHtml(d.productName)} by ${escapeHtml(d.developerName)}. It works until ${escapeHtml(ends)}.`,
      `color:${MUTED};`,
    ),
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="margin:0 0 8px 0;">
<tr><td align="center" style="background-color:#eef2ff;border:1px solid #c7d2fe;border-radius:10px;padding:18px 12px;">
<div style="font-family:${MONO};font-size:20px;line-height:30px;font-weight:700;letter-spacing:1px;color:${INK};">${escapeHtml(d.licenseKey)}</div>
</td></tr>
</table>`,
    detailRows([
      ["Product", `${d.productName} by ${d.developerName}`],
      ["Trial ends", ends],
      ["Machines", `Up to ${seats} at a time`],
      ["Trial for", d.buyerEmail],
    ]),
    h2("Download"),
    ...(release ? releaseHtml(release, "trial key") : [button(d.downloadUrl, `Download ${oneLine(d.productName)}`), rawLink(d.downloadUrl)]),
    h2("How to activate"),
    p(`Install ${escapeHtml(d.productName)}, open it and paste the key above when it asks for one.`),
    p(`Buy a license before the trial ends to keep using it: ${a(d.productPageUrl, d.productPageUrl)}`),
    p(
      "If you did not ask for this trial, ignore this e-mail: nobody else received the key.",
      `margin:0;font-size:13px;line-height:20px;color:${FAINT};`,
    ),
  ].join("\n");
  const footer = `Product ID ${escapeHtml(d.pluginId)}. You received this e-mail because someone asked for a trial of ${escapeHtml(d.productName)} for ${escapeHtml(d.buyerEmail)} on ${escapeHtml(SITE_NAME)}.`;
  const text = [
    `Your ${d.productName} trial`,
    "",
    `Here is your trial key for ${d.productName} by ${d.developerName}. It works until ${ends}.`,
    "",
    `    ${d.licenseKey}`,
    "",
    `Product:     ${d.productName} by ${d.developerName}`,
    `Trial ends:  ${ends}`,
    `Machines:    up to ${seats} at a time`,
    `Trial for:   ${d.buyerEmail}`,
    "",
    "DOWNLOAD",
    ...(release ? releaseText(release, "trial key") : [href(d.downloadUrl)]),
    "",
    "HOW TO ACTIVATE",
    `Install ${d.productName}, open it and paste the key above when it asks for one.`,
    "",
    `Buy a license before the trial ends to keep using it: ${href(d.productPageUrl)}`,
    "",
    "If you did not ask for this trial, ignore this e-mail: nobody else received the key.",
    "",
    "-- ",
    `Product ID ${d.pluginId}. You received this e-mail because someone asked for a trial of ${d.productName} for ${d.buyerEmail} on ${SITE_NAME}.`,
    "",
  ].join("\n");
  return { subject, html: layout({ title: subject, preheader: `Your trial key for ${d.productName}, valid until ${ends}.`, body, footer }), text };
}

export interface TrialNotNeededEmailData {
  buyerEmail: string;
  productName: string;
}

/** The answer to a trial request from an address that already owns the product: no key, a pointer to its licenses. */
export function trialNotNeededEmail(d: TrialNotNeededEmailData): RenderedEmail {
  const subject = oneLine(`You already own ${d.productName}`);
  const licensesUrl = absoluteUrl("/licenses");
  const body = [
    `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">You already own ${escapeHtml(d.productName)}</h1>`,
    p(
      `A trial was asked for ${escapeHtml(d.buyerEmail)}, which already has a license for ${escapeHtml(d.productName)}, so no trial key was made.`,
      `color:${MUTED};`,
    ),
    p(`Your license key is in your purchase e-mail and under ${a(licensesUrl, "My licenses")}.`),
    p("If you did not ask for a trial, ignore this e-mail.", `margin:0;font-size:13px;line-height:20px;color:${FAINT};`),
  ].join("\n");
  const footer = `You received this e-mail because someone asked for a trial of ${escapeHtml(d.productName)} for ${escapeHtml(d.buyerEmail)} on ${escapeHtml(SITE_NAME)}.`;
  const text = [
    `You already own ${d.productName}`,
    "",
    `A trial was asked for ${d.buyerEmail}, which already has a license for ${d.productName}, so no trial key was made.`,
    "",
    "Your license key is in your purchase e-mail and under My licenses:",
    licensesUrl,
    "",
    "If you did not ask for a trial, ignore this e-mail.",
    "",
    "-- ",
    `You received this e-mail because someone asked for a trial of ${d.productName} for ${d.buyerEmail} on ${SITE_NAME}.`,
    "",
  ].join("\n");
  return { subject, html: layout({ title: subject, preheader: `No trial needed: you have a license for ${d.productName}.`, body, footer }), text };
}

export interface WebhookDisabledEmailData {
  sellerName: string;
  url: string;
  /** Deliveries in a row that failed after every retry. */
  failures: number;
  dashboardUrl: string;
}

/** To a seller whose webhook endpoint was disabled after repeated failed deliveries (lib/webhooks/deliver.ts). */
export function webhookDisabledEmail(d: WebhookDisabledEmailData): RenderedEmail {
  const subject = "A webhook endpoint of yours was disabled";
  const why = `${d.failures} deliveries in a row to it failed after every retry, so we stopped sending events to it.`;
  const body = [
    `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">Webhook endpoint disabled</h1>`,
    p(`Hello ${escapeHtml(d.sellerName)},`, `color:${MUTED};`),
    p(`Your webhook endpoint <code style="font-family:${MONO};word-break:break-all;">${escapeHtml(d.url)}</code> was disabled: ${escapeHtml(why)}`),
    p(
      "Events that happen while it is disabled are not queued for it. Once the receiver works again, enable the endpoint, send a test event, and redeliver what it missed from its delivery log.",
    ),
    button(d.dashboardUrl, "Open webhooks"),
  ].join("\n");
  const footer = `You received this e-mail because you sell on ${escapeHtml(SITE_NAME)} and registered this webhook endpoint.`;
  const text = [
    "Webhook endpoint disabled",
    "",
    `Hello ${d.sellerName},`,
    "",
    `Your webhook endpoint ${d.url} was disabled: ${why}`,
    "",
    "Events that happen while it is disabled are not queued for it. Once the receiver works again, enable the endpoint, send a test event, and redeliver what it missed from its delivery log:",
    d.dashboardUrl,
    "",
    "-- ",
    `You received this e-mail because you sell on ${SITE_NAME} and registered this webhook endpoint.`,
    "",
  ].join("\n");
  return { subject, html: layout({ title: subject, preheader: why, body, footer }), text };
}

export interface BundleLicenseEmailData {
  buyerEmail: string;
  bundleName: string;
  developerName: string;
  orderId: string;
  charges: OrderCharges;
  /** One license per included product the order issued, in the bundle's order. */
  licenses: Array<{
    productName: string;
    licenseKey: string;
    maxMachines: number;
    downloadUrl: string;
    productPageUrl: string;
    /** The newest release the license may download, each build's link license-gated: linked instead of `downloadUrl`. */
    release?: MailRelease | null;
  }>;
  /** Included products the buyer already held, so no new license was issued for them (a prorated price). */
  alreadyHeld: string[];
}

/**
 * After a bundle's purchase: one message listing every license the order issued (a key, its machines and its
 * download per included product), with the charges once, so the buyer gets all keys together.
 */
export function bundleLicenseEmail(d: BundleLicenseEmailData): RenderedEmail {
  const licensesUrl = absoluteUrl("/licenses");
  const subject = oneLine(`Your license keys for ${d.bundleName}`);
  const count = `${d.licenses.length} license${d.licenses.length === 1 ? "" : "s"}`;
  const held = d.alreadyHeld.length
    ? `You already held ${d.alreadyHeld.join(", ")}, so no new license was issued for ${d.alreadyHeld.length === 1 ? "it" : "them"}.`
    : "";
  const body = [
    `<h1 style="margin:0 0 8px 0;font-size:22px;line-height:30px;font-weight:700;color:${INK};">Thanks for buying ${escapeHtml(d.bundleName)}</h1>`,
    p(
      `The bundle ${escapeHtml(d.bundleName)} by ${escapeHtml(d.developerName)} gives you ${count}, one per product. Each key activates its own product:`,
      `color:${MUTED};`,
    ),
    ...d.licenses.map((l) => {
      const builds = ownRelease(l.release, licensesUrl);
      return [
        h2(l.productName),
        `<div style="margin:0 0 8px 0;background-color:#eef2ff;border:1px solid #c7d2fe;border-radius:10px;padding:12px;font-family:${MONO};font-size:17px;line-height:26px;font-weight:700;letter-spacing:1px;color:${INK};text-align:center;">${escapeHtml(l.licenseKey)}</div>`,
        ...(builds
          ? [
              p(`Up to ${escapeHtml(machines(l.maxMachines))} at a time · ${a(l.productPageUrl, "Product page")}`, "font-size:14px;"),
              ...releaseHtml(builds, "license"),
            ]
          : [
              p(
                `Up to ${escapeHtml(machines(l.maxMachines))} at a time · ${a(ownLink(l.downloadUrl, licensesUrl), "Download")} · ${a(l.productPageUrl, "Product page")}`,
                "font-size:14px;",
              ),
            ]),
      ].join("\n");
    }),
    held ? p(escapeHtml(held), `color:${MUTED};`) : "",
    h2("Payment"),
    detailRows([
      [`Bundle`, `${d.bundleName} by ${d.developerName}`],
      ...chargeRows({ charges: d.charges, amountDisplay: d.charges.total }, false),
      ["Licensed to", d.buyerEmail],
    ]),
    p(`Keep this e-mail. All your licenses, their machines and receipts are on ${a(licensesUrl, "My licenses")}.`, "margin:0;"),
  ]
    .filter(Boolean)
    .join("\n");
  const footer = [
    `Order ${escapeHtml(d.orderId)} — quote the order number if you contact support.`,
    `<br>You received this e-mail because ${escapeHtml(d.buyerEmail)} bought a bundle on ${escapeHtml(SITE_NAME)}.`,
  ].join("");
  const text = [
    `Thanks for buying ${d.bundleName}`,
    "",
    `The bundle ${d.bundleName} by ${d.developerName} gives you ${count}, one per product. Each key activates its own product:`,
    ...d.licenses.flatMap((l) => {
      const builds = ownRelease(l.release, licensesUrl);
      return [
        "",
        l.productName.toUpperCase(),
        `    ${l.licenseKey}`,
        ...(builds
          ? [`Up to ${machines(l.maxMachines)} at a time.`, ...releaseText(builds, "license")]
          : [`Up to ${machines(l.maxMachines)} at a time. Download: ${ownLink(l.downloadUrl, licensesUrl)}`]),
        `Product page: ${href(l.productPageUrl)}`,
      ];
    }),
    ...(held ? ["", held] : []),
    "",
    "PAYMENT",
    `Bundle:       ${d.bundleName} by ${d.developerName}`,
    ...chargeRows({ charges: d.charges, amountDisplay: d.charges.total }, false).map(([label, value]) => `${`${label}:`.padEnd(13)} ${value}`),
    `Licensed to:  ${d.buyerEmail}`,
    "",
    `All your licenses, their machines and receipts are on My licenses: ${licensesUrl}`,
    "",
    "-- ",
    `Order ${d.orderId}. Quote the order number if you contact support.`,
    `You received this e-mail because ${d.buyerEmail} bought a bundle on ${SITE_NAME}.`,
    "",
  ].join("\n");
  const preheader = `Your ${count} from ${d.bundleName}, with downloads.`;
  return { subject, html: layout({ title: subject, preheader, body, footer }), text };
}
