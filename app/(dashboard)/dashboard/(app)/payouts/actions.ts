"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { connectPayoutAccount, payoutDashboardLink } from "@/lib/payouts/stripe-connect";

/** A refusal as one of the Payouts page's known error codes (the page shows only known codes). */
function errorCode(error: unknown): string {
  if (!(error instanceof AppError) || (error.status >= 500 && error.status !== 502)) throw error;
  if (error.status === 502) return "payout-unavailable";
  if (error.code === "payouts_not_configured") return "payouts-not-configured";
  if (error.code === "payout_onboarding_incomplete") return "payout-onboarding-incomplete";
  return "payout-refused";
}

/** Connect: Stripe's onboarding (we leave for Stripe's page) or, in test mode, the test account at once. */
export async function connectPayoutAction(fd: FormData): Promise<void> {
  const { developer } = await requireSeller();
  const raw = fd.get("country");
  const country = typeof raw === "string" && /^[A-Z]{2}$/.test(raw) ? raw : undefined;
  let url: string | null;
  try {
    url = (await connectPayoutAccount(developer, country ? { country } : {})).url;
  } catch (error) {
    redirect(`/dashboard/payouts?error=${errorCode(error)}`);
  }
  revalidatePath("/dashboard", "layout");
  redirect(url ?? "/dashboard/payouts?notice=payout-connected");
}

/** The Stripe Express dashboard: a fresh single-use login link each time. */
export async function openPayoutDashboardAction(): Promise<void> {
  const { developer } = await requireSeller();
  let url: string;
  try {
    url = (await payoutDashboardLink(developer.id)).url;
  } catch (error) {
    redirect(`/dashboard/payouts?error=${errorCode(error)}`);
  }
  redirect(url);
}
