import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getDb } from "../db.ts";
import { SESSION_COOKIE, sessionFromToken, type SessionKind } from "./sign-in.ts";

/** The signed-in session of a kind, read from its cookie in a page or server action. */
async function currentSession(kind: SessionKind) {
  const jar = await cookies();
  return sessionFromToken(jar.get(SESSION_COOKIE[kind])?.value, kind);
}

/** The signed-in seller and their developer profile (null until they create one). */
export async function currentSeller() {
  const session = await currentSession("seller");
  if (!session) return null;
  const developer = await getDb().developer.findUnique({ where: { email: session.email } });
  return { email: session.email, developer };
}

/** For dashboard pages and actions: a signed-in seller with a profile, or a redirect to sign in or to create one. */
export async function requireSeller() {
  const seller = await currentSeller();
  if (!seller) redirect("/dashboard/sign-in");
  if (!seller.developer) redirect("/dashboard/welcome");
  return { email: seller.email, developer: seller.developer };
}

export async function currentBuyer() {
  return currentSession("buyer");
}
