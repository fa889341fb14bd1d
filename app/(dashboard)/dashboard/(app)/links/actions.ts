"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, idOf, runOperation } from "@/lib/transports/action";
import { refusalNotice, sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { linkProblems, readLinkForm } from "@/components/links/link-form-data";
import { appErrorMessage, refused, type FormState } from "@/components/dashboard/form-state";

const PAGE = "/dashboard/links";

/** Refusals that belong under one field of the form, in its words. */
const FIELD_OF: Record<string, string> = {
  link_slug_taken: "slug",
  quantity_not_allowed: "quantity",
  interval_not_offered: "interval",
  amount_below_minimum: "coupon_code",
};

export async function createCheckoutLinkAction(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  const link = readLinkForm(fd);
  const outcome = await runOperation<{ link: { id: string } }>("createCheckoutLink", { body: link.body, idempotencyKey: idempotencyKeyOf(fd) });
  if (!outcome.ok) {
    const problem = sellerRefusal(outcome.problem);
    const field = FIELD_OF[problem.code];
    if (field) return refused(link.values, { [field]: [problem.detail] });
    const errors = linkProblems(problem, link);
    return refused(link.values, errors, Object.keys(errors).length === 0 || problem.status !== 400 ? appErrorMessage(problem) : undefined);
  }
  revalidatePath(PAGE);
  redirect(`${PAGE}?done=created&link=${encodeURIComponent(outcome.output.link.id)}#links`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function deactivateCheckoutLinkAction(rawLinkId: unknown): Promise<void> {
  const outcome = await runOperation("updateCheckoutLink", { params: { id: idOf(rawLinkId) }, body: { active: false } });
  revalidatePath(PAGE);
  redirect(outcome.ok ? `${PAGE}?done=deactivated#links` : `${PAGE}?error=${refusalNotice(sellerRefusal(outcome.problem))}#links`);
}
