"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { getDb } from "@/lib/db";
import { minorDigits } from "@/lib/pricing";
import { refundOrder } from "@/lib/refunds/refund-order";
import { orderParamsSchema, refundReasonSchema } from "@/lib/refunds/schemas";
import { appErrorMessage, formText, formValues, isNotFound, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

const orderPath = (id: string) => `/dashboard/orders/${encodeURIComponent(id)}`;

/** "12.5" in a currency with 2 decimals → 1250; null when it is not a plain positive amount in that precision. */
function toMinor(text: string, currency: string): number | null {
  const digits = minorDigits(currency);
  const m = new RegExp(`^(\\d{1,9})(?:\\.(\\d{1,${Math.max(digits, 1)}}))?$`).exec(text.replace(/,/g, "").trim());
  if (!m || (digits === 0 && m[2] !== undefined)) return null;
  const minor = Number(m[1]) * 10 ** digits + Number((m[2] ?? "").padEnd(digits, "0") || "0");
  return Number.isSafeInteger(minor) && minor > 0 ? minor : null;
}

/**
 * The refund form: "full" refunds all that remains, "partial" the amount typed (in the order's currency, major
 * units). The seller must tick the confirmation; refusals come back with the problem's own words.
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
    const minor = toMinor(formText(fd, "amount"), order.currency);
    if (minor === null) errors.amount = [`Enter an amount in ${order.currency.toUpperCase()}, for example 5.00.`];
    else amountCents = minor;
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
