import { createHash } from "node:crypto";
import { env } from "../env.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { readCookie } from "./cookies.ts";

/**
 * Ties a sign-in link to the browser that asked for it. The sign-in form's answer sets this short-lived cookie: the
 * address typed (so "check your e-mail" can name it without echoing a query parameter) and a digest of each link sent
 * from this browser. The confirm page looks for the link's digest: present, the person who asked is the one clicking;
 * absent (another device, or someone else's link), the page warns before anyone signs in. An attacker cannot plant
 * this cookie, so their own link always arrives "from another browser".
 */
export const SIGN_IN_BROWSER_COOKIE = "ilm_sign_in";
const KEEP = 4;
const MAX_AGE_SECONDS = 15 * 60;

/** A digest of a sign-in token for the binding cookie (not the token hash the database stores). */
export function linkDigest(token: string): string {
  return createHash("sha256").update(`ilm-sign-in-browser|${token}`).digest("base64url").slice(0, 22);
}

interface Binding {
  email: string | null;
  digests: string[];
}

export function readBinding(cookieHeader: string | null): Binding {
  const raw = readCookie(cookieHeader, SIGN_IN_BROWSER_COOKIE) ?? "";
  if (raw.length > 400) return { email: null, digests: [] };
  const [encodedEmail = "", ...digests] = raw.split(".");
  const email = emailSchema.safeParse(Buffer.from(encodedEmail, "base64url").toString("utf8"));
  return { email: email.success ? email.data : null, digests: digests.filter((d) => /^[A-Za-z0-9_-]{22}$/.test(d)) };
}

/** Whether the browser sending `cookieHeader` is the one that asked for the link holding `token`. */
export function linkBoundHere(cookieHeader: string | null, token: string): boolean {
  return readBinding(cookieHeader).digests.includes(linkDigest(token));
}

/** The Set-Cookie after this browser asked for another link: its address, and the newest few link digests. */
export function bindingCookie(cookieHeader: string | null, email: string, digest: string): string {
  const digests = [digest, ...readBinding(cookieHeader).digests.filter((d) => d !== digest)].slice(0, KEEP);
  const value = [Buffer.from(email, "utf8").toString("base64url"), ...digests].join(".");
  const secure = env().BASE_URL.startsWith("https://") ? "; Secure" : "";
  return `${SIGN_IN_BROWSER_COOKIE}=${value}; Path=/auth; HttpOnly; SameSite=Lax; Max-Age=${MAX_AGE_SECONDS}${secure}`;
}

/**
 * An address as the confirm page shows it: enough to recognise one's own account ("jo•••@example.com"), not enough to
 * read someone else's from a forwarded link.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 1) return "•••";
  const local = email.slice(0, at);
  const shown = local.length <= 2 ? local.slice(0, 1) : local.slice(0, 2);
  return `${shown}•••${email.slice(at)}`;
}
