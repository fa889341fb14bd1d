import { notFound, redirect } from "next/navigation";
import type { AppError } from "@/lib/http/errors";

/**
 * What a seller's server action does with a refused operation before wording it: no session goes to sign-in, no
 * profile to the welcome page, something not theirs (or gone) is the 404 page, as the dashboard's pages answer. Any
 * other refusal comes back to be shown on the form.
 */
export function sellerRefusal(problem: AppError): AppError {
  if (problem.status === 401) redirect("/dashboard/sign-in");
  if (problem.code === "no_developer_profile") redirect("/dashboard/welcome");
  if (problem.status === 404) notFound();
  return problem;
}

/**
 * A refusal as the `error` code the dashboard's Notice shows after an action that redirects (a button, no form): the
 * codes the page knows (`known`, in the Notice's spelling, e.g. "payout-account-required"), a rate limit as such, and
 * anything else as "That did not work".
 */
export function refusalNotice(problem: AppError, known: readonly string[] = []): string {
  const code = problem.code.replace(/_/g, "-");
  if (known.includes(code)) return code;
  return problem.status === 429 ? "rate-limited" : "failed";
}
