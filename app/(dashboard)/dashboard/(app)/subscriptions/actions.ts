"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";

/**
 * "Cancel at period end" on the Subscriptions page: the seller's cancelSubscription operation through execute() (the
 * dashboard session, same-origin writes, the seller's limits). Comes back to the page with a code it words.
 */
export async function cancelSubscriptionAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const outcome = await runOperation("cancelSubscription", { params: { id: textOf(fd, "subscription_id") } });
  revalidatePath("/dashboard/subscriptions");
  if (outcome.ok) redirect("/dashboard/subscriptions?notice=canceled");
  const problem = sellerRefusal(outcome.problem);
  redirect(`/dashboard/subscriptions?notice=${problem.status === 409 ? "unchanged" : "failed"}`);
}
