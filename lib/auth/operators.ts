import { env } from "../env.ts";

/** ADMIN_EMAILS as a set of lower-cased addresses; empty (nobody) when unset. */
function adminEmails(): Set<string> {
  return new Set(
    (env().ADMIN_EMAILS ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
}

/** Whether ADMIN_EMAILS names anyone. */
export function hasOperators(): boolean {
  return adminEmails().size > 0;
}

/** Whether an address is the operator's (ADMIN_EMAILS). */
export function isAdminEmail(email: string): boolean {
  return adminEmails().has(email.trim().toLowerCase());
}
