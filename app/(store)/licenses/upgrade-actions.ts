"use server";

import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, runOperation, textOf } from "@/lib/transports/action";
import { buyerRefusal } from "./_lib/action-outcome";
import type { ErrorCode } from "./messages";

/**
 * "Pay … and upgrade" on My licenses: the upgrade's checkout for one of the buyer's licenses (named by id: the session
 * decides it is theirs), at the amount the buyer confirmed, then on to the payment page every sale uses.
 */
export async function buyUpgrade(form: unknown): Promise<void> {
  const fd = formOf(form);
  const expected = textOf(fd, "expected_amount_cents");
  const outcome = await runOperation<{ url: string }>("createUpgradeCheckout", {
    body: {
      license_id: textOf(fd, "license_id"),
      offer_id: textOf(fd, "offer_id"),
      ...(/^\d{1,9}$/.test(expected) ? { expected_amount_cents: Number(expected) } : {}),
    },
    idempotencyKey: idempotencyKeyOf(fd),
  });
  if (!outcome.ok) {
    const problem = buyerRefusal(outcome.problem);
    const code: ErrorCode =
      problem.code === "amount_changed" ? "upgrade_amount_changed" : problem.status === 429 ? "too_many_attempts" : "upgrade_unavailable";
    redirect(`/licenses?error=${code}`);
  }
  redirect(outcome.output.url);
}
