import { notFound } from "next/navigation";
import type { AppError, ProblemFieldError } from "@/lib/http/errors";

/**
 * What an operator's server action does with a refused operation before wording it: anyone who is not the operator
 * (no session, or an address ADMIN_EMAILS does not list: the operation's 404 `route_not_found`) gets the site's
 * ordinary 404 page, as the console's pages answer, so nobody can tell that the console exists. Any other refusal
 * comes back to be shown on the page.
 */
export function adminRefusal(problem: AppError): AppError {
  if (problem.status === 401 || problem.code === "route_not_found") notFound();
  return problem;
}

/**
 * The code a console page words a refusal by (its own table of messages; unknown codes read as "that did not work"):
 * a form the operation refused (400) is `invalid`, otherwise the problem's own code.
 */
export function refusalCode(problem: AppError, invalid = "invalid"): string {
  return problem.status === 400 ? invalid : problem.code;
}

/** The first problem the operation found with one field of the form (a 400's `errors`, by the input's field name). */
export function fieldProblem(problem: AppError, name: string): ProblemFieldError | undefined {
  return problem.status === 400 ? problem.extra.errors?.find((e) => e.name === name) : undefined;
}
