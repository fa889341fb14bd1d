"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { AppError } from "@/lib/http/errors";
import { formOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";

const PAGE = "/dashboard/payouts";

/** A refusal as one of the Payouts page's known error codes (the page shows only known codes). */
function errorCode(problem: AppError): string {
  if (problem.status === 502) return "payout-unavailable";
  if (problem.code === "payouts_not_configured") return "payouts-not-configured";
  if (problem.code === "payout_onboarding_incomplete") return "payout-onboarding-incomplete";
  return problem.status === 429 ? "rate-limited" : "payout-refused";
}

/** Connect: Stripe's onboarding (we leave for Stripe's page) or, in test mode, the test account at once. */
export async function connectPayoutAction(form: unknown): Promise<void> {
  // The country is asked only before a Stripe account exists; empty is the platform's.
  const country = textOf(formOf(form), "country");
  const outcome = await runOperation<{ url: string | null }>("connectPayoutAccount", { body: country ? { country } : {} });
  if (!outcome.ok) redirect(`${PAGE}?error=${errorCode(sellerRefusal(outcome.problem))}`);
  revalidatePath("/dashboard", "layout");
  redirect(outcome.output.url ?? `${PAGE}?notice=payout-connected`);
}

/** The Stripe Express dashboard: a fresh single-use login link each time. */
export async function openPayoutDashboardAction(): Promise<void> {
  const outcome = await runOperation<{ url: string }>("payoutDashboardLink");
  // No payout account (a 404 here) is the page's to explain, not the 404 page's.
  if (!outcome.ok) redirect(`${PAGE}?error=${outcome.problem.status === 404 ? "payout-refused" : errorCode(sellerRefusal(outcome.problem))}`);
  redirect(outcome.output.url);
}
