"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation, textOf } from "@/lib/transports/action";
import { buyerRefusal } from "./_lib/action-outcome";
import type { ErrorCode, NoticeCode } from "./messages";

// My licenses' forms for invoices' billing details and license transfers: each runs the buyer's operation
// (lib/operations/buyer.ts) through the registry and comes back to the page with a code it words (./messages.ts).

/** A refused transfer or billing form, as the code the page words. */
function refusedCode(code: string, status: number): ErrorCode | "failed" {
  if (status === 429) return "too_many_attempts";
  const known: Record<string, ErrorCode> = {
    transfer_not_allowed: "transfer_not_allowed",
    license_refunded: "transfer_license_ended",
    license_disputed: "transfer_license_ended",
    license_revoked: "transfer_license_ended",
    license_expired: "transfer_license_ended",
    license_trial: "transfer_license_kind",
    license_subscription: "transfer_license_kind",
    transfer_to_self: "transfer_to_self",
    transfer_other_recipient: "transfer_other_recipient",
    transfer_expired: "transfer_gone",
    transfer_cancelled: "transfer_gone",
    transfer_accepted: "transfer_gone",
    transfer_not_found: "transfer_gone",
    transfer_stale: "transfer_gone",
  };
  return known[code] ?? (status === 400 ? "form_invalid" : "failed");
}

async function step(id: string, body: Record<string, string>, done: NoticeCode): Promise<never> {
  const outcome = await runOperation(id, { body });
  revalidatePath("/licenses");
  if (outcome.ok) redirect(`/licenses?notice=${done}`);
  const problem = buyerRefusal(outcome.problem);
  redirect(`/licenses?error=${refusedCode(problem.code, problem.status)}`);
}

/** "Save billing details" under an invoice: name, address, country and an optional VAT ID. */
export async function saveBillingDetails(form: unknown): Promise<void> {
  const fd = formOf(form);
  const vat = textOf(fd, "vat_id").trim();
  await step(
    "buyerSetBillingDetails",
    {
      order_id: textOf(fd, "order_id"),
      name: textOf(fd, "name"),
      address: textOf(fd, "address"),
      country: textOf(fd, "country"),
      ...(vat ? { vat_id: vat } : {}),
    },
    "billing_saved",
  );
}

/** "Transfer this license": the address that receives it. */
export async function startTransfer(form: unknown): Promise<void> {
  const fd = formOf(form);
  await step("buyerStartTransfer", { license_id: textOf(fd, "license_id"), to_email: textOf(fd, "to_email") }, "transfer_sent");
}

/** "Cancel the transfer" of a pending offer. */
export async function cancelTransfer(form: unknown): Promise<void> {
  const fd = formOf(form);
  await step("buyerCancelTransfer", { transfer_id: textOf(fd, "transfer_id") }, "transfer_cancelled");
}

/** "Accept" an offer: from the link's page (its token) or from the list of offers on My licenses (its id). */
export async function acceptTransfer(form: unknown): Promise<void> {
  const fd = formOf(form);
  const token = textOf(fd, "token");
  await step("buyerAcceptTransfer", token ? { token } : { transfer_id: textOf(fd, "transfer_id") }, "transfer_accepted");
}
