import { escapeHtml, type RenderedEmail } from "../email/templates.ts";
import { SERVICE_NAME } from "../versions.ts";

/** A plain message of a few paragraphs and at most one link, in text and in HTML (every value escaped). */
function plainEmail(subject: string, paragraphs: string[], link?: { label: string; url: string }): RenderedEmail {
  const text = [...paragraphs, ...(link ? [`${link.label}: ${link.url}`] : []), `— ${SERVICE_NAME}`].join("\n\n");
  const html = [
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(link ? [`<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`] : []),
    `<p>— ${escapeHtml(SERVICE_NAME)}</p>`,
  ].join("\n");
  return { subject: subject.replace(/\s+/g, " ").trim(), text, html };
}

export function transferOfferEmail(d: { productName: string; fromEmail: string; acceptUrl: string; expiresAt: Date }): RenderedEmail {
  return plainEmail(
    `A license for ${d.productName} is offered to you`,
    [
      `${d.fromEmail} wants to transfer their license for ${d.productName} to this address.`,
      `Accept it by the link below before ${d.expiresAt.toISOString().slice(0, 10)} (sign in with this address if asked). The license then gets a new key, which only you hold.`,
      "If you do not want it, ignore this message.",
    ],
    { label: "Accept the license", url: d.acceptUrl },
  );
}

export function transferDoneOldHolderEmail(d: { productName: string; toEmail: string }): RenderedEmail {
  return plainEmail(`Your license for ${d.productName} was transferred`, [
    `${d.toEmail} accepted the license for ${d.productName} you transferred to them.`,
    "Its old key no longer works, and every machine it was activated on was released.",
  ]);
}

export function transferDoneNewHolderEmail(d: {
  productName: string;
  licenseKey: string;
  maxMachines: number;
  myLicensesUrl: string;
}): RenderedEmail {
  return plainEmail(
    `Your license for ${d.productName}`,
    [
      `The license for ${d.productName} is now yours. Its key: ${d.licenseKey}`,
      `It may be activated on ${String(d.maxMachines)} ${d.maxMachines === 1 ? "machine" : "machines"}.`,
    ],
    { label: "My licenses", url: d.myLicensesUrl },
  );
}

export function transferDoneSellerEmail(d: { productName: string; fromEmail: string; toEmail: string; licenseId: string }): RenderedEmail {
  return plainEmail(`A license for ${d.productName} changed hands`, [
    `${d.fromEmail} transferred their license for ${d.productName} (license ${d.licenseId}) to ${d.toEmail}.`,
    "The license has a new key; the old one answers TRANSFERRED, and its machines were released.",
  ]);
}
