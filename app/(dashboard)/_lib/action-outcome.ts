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
