import { getDb } from "../db.ts";
import { AppError } from "../http/errors.ts";
import { readCookie } from "./cookies.ts";
import { SESSION_COOKIE, sessionFromToken } from "./sign-in.ts";

/** The signed-in seller behind an API request (session cookie), or 401/403. */
export async function sellerFromRequest(request: Request) {
  const session = await sessionFromToken(readCookie(request.headers.get("cookie"), SESSION_COOKIE.seller), "seller");
  if (!session) throw new AppError("unauthorized", 401, "Sign in to the seller dashboard first.");
  const developer = await getDb().developer.findUnique({ where: { email: session.email } });
  if (!developer) throw new AppError("no_developer_profile", 403, "Create your developer profile in the dashboard first.");
  return { email: session.email, developer };
}
