import { redirect } from "next/navigation";
import type { AppError } from "@/lib/http/errors";
import type { ErrorCode } from "../messages";

/**
 * What My licenses' server actions do with a refused operation. The operations are the buyer's (lib/operations/buyer.ts):
 * a 401 means the session ended (or was never there).
 */
export const sessionEnded = (problem: AppError): boolean => problem.status === 401;

/** For the forms that redirect: no session goes back to the page's sign-in, saying why. */
export function buyerRefusal(problem: AppError): AppError {
  if (sessionEnded(problem)) redirect(`/licenses?error=${"session_ended" satisfies ErrorCode}`);
  return problem;
}

/** A refusal that is not about the form's fields, in words. */
export function refusalMessage(problem: AppError): string {
  if (problem.status === 429) return "Too many attempts in a short time. Wait a minute and try again.";
  if (problem.status >= 500) return "That did not work. Please try again.";
  return problem.detail;
}
