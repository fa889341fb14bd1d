import { originAllowed, readCookie } from "../auth/cookies.ts";
import { hasOperators, isAdminEmail } from "../auth/operators.ts";
import { SESSION_COOKIE, sessionFromToken, type SessionKind } from "../auth/sign-in.ts";
import { AppError } from "../http/errors.ts";

/** The operator, as the console knows them: the signed-in address that ADMIN_EMAILS lists. */
export interface Admin {
  email: string;
  /** Which sign-in the operator used (for signing out). */
  via?: SessionKind;
}

/**
 * Either session proves the address: the operator signs in with the usual links (the seller form with
 * next=/admin, or the buyer's), so there is no third kind of account or sign-in to attack.
 */
const KINDS: SessionKind[] = ["seller", "buyer"];

/** The operator behind a set of session cookies, or null. Cookie values are looked up only when someone is listed. */
export async function adminFromCookies(read: (name: string) => string | undefined): Promise<Admin | null> {
  if (!hasOperators()) return null;
  for (const kind of KINDS) {
    const session = await sessionFromToken(read(SESSION_COOKIE[kind]), kind);
    if (session && isAdminEmail(session.email)) return { email: session.email.toLowerCase(), via: kind };
  }
  return null;
}

/**
 * Anyone who is not the operator learns nothing: the same 404 problem an unknown API path gets, whether they are
 * anonymous, a seller or a buyer. (Its detail cannot name the path here; the problem's `instance` does.)
 */
const consoleNotFound = () => new AppError("route_not_found", 404, "There is no API endpoint at this address. See /openapi.json.");

/** For `admin` operations: the operator, or a 404; writes must also come from our own origin. */
export async function adminFor(ctx: { headers: Headers; origin: string }, write: boolean): Promise<Admin> {
  const cookie = ctx.headers.get("cookie");
  const admin = await adminFromCookies((name) => readCookie(cookie, name));
  if (!admin) throw consoleNotFound();
  if (write && !originAllowed(ctx.headers, ctx.origin)) throw new AppError("cross_site_request", 403, "Cross-site requests are refused.");
  return admin;
}
