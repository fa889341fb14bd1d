"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { parseMoney } from "@/lib/money/parse-money";
import { formOf, idempotencyKeyOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { formValues, problemRefusal, refused, type FormState } from "@/components/dashboard/form-state";
import { requestLocale } from "@/components/dashboard/request-locale";

const orderPath = (id: string) => `/dashboard/orders/${encodeURIComponent(id)}`;

/**
 * The refund form: "full" refunds all that remains, "partial" the amount typed (in the order's currency, major
 * units, read by parseMoney here; refundOrder gets minor units). The seller must tick the confirmation; refusals come
 * back with the problem's own words. Its idempotency key (made when the page was drawn) keeps a second click from
 * refunding twice.
 */
export async function refundAction(rawOrderId: unknown, _prev: FormState, form: unknown): Promise<FormState> {
  const orderId = idOf(rawOrderId, 64);
  const fd = formOf(form);
  const values = formValues(fd, ["kind", "amount", "reason", "confirm"]);
  // The currency the amount is typed in is the order's (another seller's order is the 404 page).
  const order = await runOperation<{ order: { currency: string } }>("getOrder", { params: { id: orderId } });
  if (!order.ok) return problemRefusal(sellerRefusal(order.problem), values);
  const currency = order.output.order.currency;
  const errors: FormState["errors"] = {};
  let amountCents: number | undefined;
  if (textOf(fd, "kind") === "partial") {
    const amount = parseMoney(textOf(fd, "amount"), currency, { locale: await requestLocale() });
    if (!amount.ok) errors.amount = [amount.code === "empty" ? `Enter the amount to refund, in ${currency.toUpperCase()}.` : amount.message];
    else if (amount.minor === 0) errors.amount = ["Enter an amount greater than zero."];
    else amountCents = amount.minor;
  }
  if (textOf(fd, "confirm") !== "on") errors.confirm = ["Tick this to confirm the refund."];
  // Nothing is refunded while the amount is unread (it would be all that remains) or the refund unconfirmed.
  if (Object.keys(errors).length > 0) return refused(values, errors);
  const body = { reason: textOf(fd, "reason"), ...(amountCents !== undefined ? { amount_cents: amountCents } : {}) };
  const outcome = await runOperation<{ refund: { id: string } }>("refundOrder", {
    params: { id: orderId },
    body,
    idempotencyKey: idempotencyKeyOf(fd),
  });
  if (!outcome.ok) return problemRefusal(sellerRefusal(outcome.problem), values, { sent: body, rename: { amount_cents: "amount" } });
  revalidatePath("/dashboard/orders");
  revalidatePath(orderPath(orderId));
  revalidatePath("/dashboard", "layout");
  redirect(`${orderPath(orderId)}?refund=${encodeURIComponent(outcome.output.refund.id)}`);
}
