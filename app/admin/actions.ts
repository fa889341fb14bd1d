"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { parseMoney } from "@/lib/money/parse-money";
import { formOf, idempotencyKeyOf, runOperation, textOf, type ActionCall } from "@/lib/transports/action";
import type { OperationId } from "@/lib/operations/index";
import { adminRefusal, refusalCode } from "./_lib/action-outcome";
import { errorCode } from "./messages";

// Each action runs the operator's operation (lib/operations/admin.ts) through the registry: the operator's session,
// same-origin writes, limits and idempotency are execute()'s. Redirect targets are fixed paths (an order's id is
// encoded into its own), never taken from the form as they are; a refusal goes back as a code the page words.

/** Runs an operator operation and comes back to `back` with a notice, or with the refusal's code. */
async function act(back: string, notice: string, id: OperationId, call: ActionCall): Promise<never> {
  const outcome = await runOperation(id, call);
  if (!outcome.ok) redirect(`${back}?error=${errorCode(refusalCode(adminRefusal(outcome.problem)))}`);
  revalidatePath("/", "layout");
  redirect(`${back}?notice=${notice}`);
}

/** The id of the row a console form acts on, as the operation's path parameter. */
const target = (fd: FormData) => ({ id: textOf(fd, "id") });
/** An optional note for the audit log: left out when empty. */
const note = (fd: FormData) => textOf(fd, "reason") || undefined;

export async function suspendSellerAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act("/admin/sellers", "seller-suspended", "suspendSeller", { params: target(fd), body: { reason: textOf(fd, "reason") } });
}

export async function reinstateSellerAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act("/admin/sellers", "seller-reinstated", "reinstateSeller", { params: target(fd), body: { note: note(fd) } });
}

export async function removeProductAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act("/admin/products", "product-removed", "removeProduct", { params: target(fd), body: { reason: textOf(fd, "reason") } });
}

export async function restoreProductAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act("/admin/products", "product-restored", "restoreProduct", { params: target(fd), body: { note: note(fd) } });
}

export async function featureProductAction(form: unknown): Promise<void> {
  await act("/admin/products", "product-featured", "featureProduct", { params: target(formOf(form)) });
}

export async function unfeatureProductAction(form: unknown): Promise<void> {
  await act("/admin/products", "product-unfeatured", "unfeatureProduct", { params: target(formOf(form)) });
}

/** The order's page, where its forms come back to. */
const orderPage = (id: string) => `/admin/orders/${encodeURIComponent(id)}`;

export async function testDisputeAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act(orderPage(textOf(fd, "id")), "test-dispute", "simulateTestDispute", {
    params: target(fd),
    body: { step: textOf(fd, "step") },
    idempotencyKey: idempotencyKeyOf(fd),
  });
}

/**
 * The amount typed is read by parseMoney in the order's currency (blank: all that remains) and the operation gets
 * minor units; a refusal by the parser goes back as its own code (the page has words for each), never as the text.
 */
export async function refundOrderAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const id = textOf(fd, "id");
  // The currency the amount is read in is the order's, as the console shows it: never taken from the form.
  const order = await runOperation<{ order: { currency: string } }>("getAdminOrder", { params: { id } });
  if (!order.ok) redirect(`/admin/orders?error=${errorCode(refusalCode(adminRefusal(order.problem), "order_not_found"))}`);
  // Like the seller's refund form: nothing is refunded unless the operator ticked the confirmation.
  if (textOf(fd, "confirm") !== "on") redirect(`${orderPage(id)}?error=refund_unconfirmed`);
  const amount = parseMoney(textOf(fd, "amount"), order.output.order.currency);
  if (!amount.ok && amount.code !== "empty")
    redirect(`${orderPage(id)}?error=${errorCode(amount.code === "too_large" ? "refund_exceeds_remaining" : `amount_${amount.code}`)}`);
  await act(orderPage(id), "refunded", "refundOrderAsOperator", {
    params: { id },
    body: { ...(amount.ok ? { amount_cents: amount.minor } : {}), reason: textOf(fd, "reason") },
    idempotencyKey: idempotencyKeyOf(fd),
  });
}

/** A license's page, where its subscription's forms come back to. */
const licensePage = (id: string) => `/admin/licenses/${encodeURIComponent(id)}`;

/** Test mode's clock: `days` pass for the subscription, with its card set first when the form says so. */
export async function advanceSubscriptionAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const card = textOf(fd, "card");
  await act(licensePage(textOf(fd, "license_id")), "subscription-advanced", "advanceTestClock", {
    params: target(fd),
    body: { days: Number(textOf(fd, "days")), ...(card ? { card } : {}) },
  });
}

export async function subscriptionCardAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act(licensePage(textOf(fd, "license_id")), "subscription-card", "adminSetTestCard", {
    params: target(fd),
    body: { card: textOf(fd, "card") },
  });
}

export async function cancelSubscriptionAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  await act(licensePage(textOf(fd, "license_id")), "subscription-canceled", "adminCancelSubscription", { params: target(fd) });
}
