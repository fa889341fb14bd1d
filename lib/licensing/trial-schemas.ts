import { z } from "zod";
import { productIdSchema } from "../marketplace/schemas.ts";

export const emailSchema = z
  .email("must be an e-mail address")
  .max(254)
  .transform((s) => s.trim().toLowerCase());

/**
 * Top-level domains that can never receive mail: reserved for testing, documentation and local names by RFC 2606
 * and RFC 6761 (`.test`, `.example`, `.invalid`, `.localhost`), and multicast DNS (`.local`, RFC 6762). A trial for
 * such an address could only ever be a free key for whoever asked, so it is refused. The second-level names
 * example.com/.net/.org stay usable (they are what tests and documentation use).
 */
const UNDELIVERABLE_TLDS: readonly string[] = ["test", "example", "invalid", "localhost", "local"];

function isUndeliverableAddress(email: string): boolean {
  const domain = email.slice(email.lastIndexOf("@") + 1).replace(/\.$/, "");
  const tld = domain.slice(domain.lastIndexOf(".") + 1);
  return UNDELIVERABLE_TLDS.includes(tld);
}

/**
 * Providers that deliver variants of one mailbox, and how: Gmail ignores dots in the local part and everything
 * after a `+`; the others ignore a `+tag` (Yahoo a `-tag`). Normalising with this list makes the variants one
 * address for "one trial per address and product".
 */
const DOMAIN_ALIASES: Readonly<Record<string, string>> = { "googlemail.com": "gmail.com" };
const IGNORE_DOTS = new Set(["gmail.com"]);
const PLUS_TAG_DOMAINS: readonly string[] = [
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "msn.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "fastmail.com",
  "fastmail.fm",
  "proton.me",
  "protonmail.com",
  "protonmail.ch",
  "pm.me",
];
const DASH_TAG_DOMAINS: readonly string[] = ["yahoo.com", "ymail.com"];

/**
 * The mailbox an address reaches, for counting trials: the whole address lower-cased, and for the providers above
 * the dots (Gmail) and tags removed. Only for comparing; mail still goes to the address as given.
 */
export function normaliseEmail(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  if (at <= 0) return address;
  let local = address.slice(0, at);
  const rawDomain = address.slice(at + 1).replace(/\.$/, "");
  const domain = DOMAIN_ALIASES[rawDomain] ?? rawDomain;
  const cut = (sep: string) => {
    const i = local.indexOf(sep);
    if (i > 0) local = local.slice(0, i);
  };
  if (PLUS_TAG_DOMAINS.includes(domain)) cut("+");
  if (DASH_TAG_DOMAINS.includes(domain)) cut("-");
  if (IGNORE_DOTS.has(domain)) local = local.replace(/\./g, "") || local;
  return `${local}@${domain}`;
}

export const startTrialRequestSchema = z.object({
  product_id: productIdSchema,
  buyer_email: emailSchema
    .refine((s) => !isUndeliverableAddress(s), "cannot receive mail (a reserved domain such as .test, .example, .invalid or .localhost)")
    .describe("Receives the trial key by e-mail; one trial per address and product"),
});

/**
 * The answer to every accepted trial request, the same whether the address is new, already has a trial or bought
 * the product: the key only ever travels by e-mail, so the answer tells the caller nothing about the address.
 */
export const trialResultSchema = z.object({
  accepted: z.literal(true).describe("Always true: the key (if the address can have one) is e-mailed to the address"),
  product_id: z.string(),
  plugin_id: z.string(),
  trial: z.literal(true),
  trial_days: z.int(),
  message: z.string(),
});
