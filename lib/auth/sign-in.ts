import { z } from "zod";
import { getDb } from "../db.ts";
import { enqueueEmail } from "../email/enqueue-email.ts";
import { kickOutbox } from "../email/deliver-emails.ts";
import { signInEmail } from "../email/templates.ts";
import { AppError } from "../http/errors.ts";
import { emailSchema } from "../licensing/trial-schemas.ts";
import { absoluteUrl } from "../urls.ts";
import { withholdOperatorLinks } from "../email/dev-mailbox.ts";
import { readCookie } from "./cookies.ts";
import { linkDigest } from "./link-binding.ts";
import { isAdminEmail } from "./operators.ts";
import { hashToken, newToken } from "./tokens.ts";

export const SESSION_KINDS = ["seller", "buyer"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];

export const SIGN_IN_TTL_MINUTES = 15;
export const SESSION_DAYS: Record<SessionKind, number> = { seller: 30, buyer: 7 };
export const SESSION_COOKIE: Record<SessionKind, string> = { seller: "ilm_seller", buyer: "ilm_buyer" };
const HOME: Record<SessionKind, string> = { seller: "/dashboard", buyer: "/licenses" };
const OPERATOR_HOME = "/admin";

/**
 * Only paths on this site, so a sign-in link can never send someone elsewhere: checked as written and as decoded
 * (`/%2F%2Fevil.example` is `//evil.example` to whatever decodes it next), each form a single `/` followed by neither a `/`
 * nor a `\`, with no `\` anywhere.
 */
const onSite = (path: string) => /^\/(?![/\\])[^\\]*$/.test(path);
function decodedOnSite(path: string): boolean {
  // Decoded until nothing changes (a few rounds at most: `%252F` is `%2F` once decoded, `/` twice), each form checked.
  for (let current = path, round = 0; round < 4; round++) {
    if (!onSite(current)) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      return false;
    }
    if (decoded === current) return true;
    current = decoded;
  }
  return false;
}
const nextPathSchema = z
  .string()
  .max(300)
  .regex(/^\/[A-Za-z0-9/_\-.?=&%]*$/, "must be a path on this site")
  .refine(decodedOnSite, "must be a path on this site");

export const signInRequestSchema = z.object({
  email: emailSchema,
  purpose: z.enum(SESSION_KINDS),
  next: nextPathSchema.optional(),
});
export type SignInRequest = z.infer<typeof signInRequestSchema>;

/**
 * E-mails a single-use sign-in link valid for 15 minutes. Says nothing about whether the address is known: a seller
 * profile is created after the first sign-in, and a buyer without licenses simply sees none. Returns the link's digest
 * for the browser-binding cookie (lib/auth/link-binding.ts). Its limits (per address, per client) are its operation's
 * (lib/operations/sessions.ts).
 */
export async function requestSignIn(input: SignInRequest, now = new Date()): Promise<{ digest: string }> {
  const { token, hash } = newToken();
  if (withholdOperatorLinks() && isAdminEmail(input.email)) {
    // The dev mailbox is readable by anyone on this machine, and an operator session is the console: no link is made.
    // The answer is the same as for any address (a digest of a link that does not exist), so it names no operator.
    console.warn(
      JSON.stringify({
        level: "warn",
        event: "operator_sign_in_withheld",
        detail: "An ADMIN_EMAILS address asked for a sign-in link, but mail is local only: set RESEND_API_KEY, or DEV_MAILBOX=local.",
      }),
    );
    return { digest: linkDigest(token) };
  }
  const url = absoluteUrl(`/auth/verify?token=${token}`);
  const mail = signInEmail({
    email: input.email,
    url,
    purpose: input.purpose === "seller" ? "dashboard" : "licenses",
    expiresMinutes: SIGN_IN_TTL_MINUTES,
  });
  await getDb().$transaction(async (tx) => {
    await tx.signInToken.create({
      data: {
        tokenHash: hash,
        email: input.email,
        purpose: input.purpose,
        // The operator's own entrance: an ADMIN_EMAILS address signing in to the dashboard lands on the console.
        next: input.next ?? (input.purpose === "seller" && isAdminEmail(input.email) ? OPERATOR_HOME : HOME[input.purpose]),
        expiresAt: new Date(now.getTime() + SIGN_IN_TTL_MINUTES * 60_000),
      },
    });
    await enqueueEmail(tx, { to: input.email, ...mail, kind: "sign-in" });
  });
  kickOutbox();
  return { digest: linkDigest(token) };
}

/**
 * What a sign-in link would do, without using it up: GET /auth/verify only shows this and asks for a click, because
 * mail scanners and link previews fetch every link in a message. Null for an expired, used or unknown token.
 */
export async function peekSignIn(token: string, now = new Date()): Promise<{ email: string; kind: SessionKind } | null> {
  if (!token || token.length > 100) return null;
  const found = await getDb().signInToken.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!found || found.usedAt || found.expiresAt <= now) return null;
  return { email: found.email, kind: found.purpose as SessionKind };
}

export interface NewSession {
  cookieName: string;
  cookieValue: string;
  maxAgeSeconds: number;
  kind: SessionKind;
  email: string;
  next: string;
}

/**
 * Exchanges a sign-in link's token for a session, once (the confirm page's POST). An expired, used or unknown token
 * is refused.
 */
export async function consumeSignIn(token: string, now = new Date()): Promise<NewSession> {
  const db = getDb();
  const invalid = new AppError("sign_in_link_invalid", 400, "This sign-in link has expired or was already used. Ask for a new one.");
  if (!token || token.length > 100) throw invalid;
  const found = await db.signInToken.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!found || found.usedAt || found.expiresAt <= now) throw invalid;
  const claimed = await db.signInToken.updateMany({ where: { id: found.id, usedAt: null }, data: { usedAt: now } });
  if (claimed.count !== 1) throw invalid;
  const kind = found.purpose as SessionKind;
  const session = newToken();
  await db.session.create({
    data: { tokenHash: session.hash, email: found.email, kind, expiresAt: new Date(now.getTime() + SESSION_DAYS[kind] * 86_400_000) },
  });
  return {
    cookieName: SESSION_COOKIE[kind],
    cookieValue: session.token,
    maxAgeSeconds: SESSION_DAYS[kind] * 86_400,
    kind,
    email: found.email,
    next: found.next,
  };
}

export interface SessionInfo {
  id: string;
  email: string;
  kind: SessionKind;
}

/** The session a cookie value names, if it is current and of the expected kind. */
export async function sessionFromToken(token: string | undefined, kind: SessionKind, now = new Date()): Promise<SessionInfo | null> {
  if (!token || token.length > 100) return null;
  const s = await getDb().session.findUnique({ where: { tokenHash: hashToken(token) } });
  if (!s || s.kind !== kind || s.expiresAt <= now) return null;
  return { id: s.id, email: s.email, kind };
}

export async function endSession(token: string | undefined): Promise<void> {
  if (!token) return;
  await getDb().session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/**
 * The address of the buyer signed in to My licenses on this request (its session cookie), or null. For public calls
 * whose answer may depend on what that address holds (a bundle's prorated price): only the holder of the address
 * learns it, never someone who merely types it.
 */
export async function signedInBuyerEmail(cookieHeader: string | null): Promise<string | null> {
  const session = await sessionFromToken(readCookie(cookieHeader, SESSION_COOKIE.buyer), "buyer");
  return session ? session.email.toLowerCase() : null;
}

/** The address of the seller signed in to the dashboard on this request (its session cookie), or null. */
export async function signedInSellerEmail(cookieHeader: string | null): Promise<string | null> {
  const session = await sessionFromToken(readCookie(cookieHeader, SESSION_COOKIE.seller), "seller");
  return session ? session.email.toLowerCase() : null;
}
