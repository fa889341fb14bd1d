"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { getDb } from "@/lib/db";
import { firstLanguageTag, parseMoney } from "@/lib/money/parse-money";
import { refundOrder } from "@/lib/refunds/refund-order";
import { orderParamsSchema, refundReasonSchema } from "@/lib/refunds/schemas";
import { appErrorMessage, formText, formValues, isNotFound, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

const orderPath = (id: string) => `/dashboard/orders/${encodeURIComponent(id)}`;

/**
 * The refund form: "full" refunds all that remains, "partial" the amount typed (in the order's currency, major
 * units, read by parseMoney). The seller must tick the confirmation; refusals come back with the problem's own words.
 */
export async function refundAction(rawOrderId: unknown, _prev: FormState, fd: FormData): Promise<FormState> {
  const parsedId = orderParamsSchema.safeParse({ id: rawOrderId });
  if (!parsedId.success) notFound();
  const orderId = parsedId.data.id;
  const { email, developer } = await requireSeller();
  const values = formValues(fd, ["kind", "amount", "reason", "confirm"]);
  const errors: FormState["errors"] = {};
  const reason = refundReasonSchema.safeParse(formText(fd, "reason"), { reportInput: true });
  if (!reason.success) zodFieldErrors(reason.error, { rename: { _form: "reason" } }, errors);
  const order = await getDb().order.findUnique({ where: { id: orderId }, select: { currency: true, product: { select: { developerId: true } } } });
  if (!order || order.product.developerId !== developer.id) notFound();
  let amountCents: number | undefined;
  if (formText(fd, "kind") === "partial") {
    const amount = parseMoney(formText(fd, "amount"), order.currency, { locale: firstLanguageTag((await headers()).get("accept-language")) });
    if (!amount.ok) errors.amount = [amount.code === "empty" ? `Enter the amount to refund, in ${order.currency.toUpperCase()}.` : amount.message];
    else if (amount.minor === 0) errors.amount = ["Enter an amount greater than zero."];
    else amountCents = amount.minor;
  }
  if (formText(fd, "confirm") !== "on") errors.confirm = ["Tick this to confirm the refund."];
  if (Object.keys(errors).length > 0 || !reason.success) return refused(values, errors);
  let refundId: string;
  try {
    refundId = (await refundOrder({ orderId, amountCents, reason: reason.data, actor: { kind: "seller", developerId: developer.id, email } })).id;
  } catch (error) {
    if (isNotFound(error)) notFound();
    if (!(error instanceof AppError)) throw error;
    return refused(values, {}, appErrorMessage(error));
  }
  revalidatePath("/dashboard/orders");
  revalidatePath(orderPath(orderId));
  revalidatePath("/dashboard", "layout");
  redirect(`${orderPath(orderId)}?refund=${encodeURIComponent(refundId)}`);
}
