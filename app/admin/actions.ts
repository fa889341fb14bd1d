"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { z } from "zod";
import { featureProduct, restoreProduct, removeProduct, unfeatureProduct } from "@/lib/admin/products";
import { noteBodySchema, reasonBodySchema } from "@/lib/admin/schemas";
import { reinstateSeller, suspendSeller } from "@/lib/admin/sellers";
import { requireAdmin } from "@/lib/admin/session";
import { getDb } from "@/lib/db";
import { AppError, notFound } from "@/lib/http/errors";
import { parseMoney } from "@/lib/money/parse-money";
import { refundOrder } from "@/lib/refunds/refund-order";
import { simulateTestDispute, TEST_DISPUTE_STEPS } from "@/lib/refunds/test-disputes";
import { refundReasonSchema } from "@/lib/refunds/schemas";
import { errorCode } from "./_ui";

// Every action checks the operator itself (a server action is its own endpoint); Next checks the Origin of every
// action post. Redirect targets are fixed paths, never taken from the form.

const idSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/);

const text = (fd: FormData, name: string) => {
  const v = fd.get(name);
  return typeof v === "string" ? v : "";
};

/** Runs an operator action; a refusal goes back as a code the page maps to our words, never as text. */
async function run(back: string, notice: string, act: () => Promise<unknown>): Promise<never> {
  try {
    await act();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) redirect(`${back}?error=${errorCode(error.status === 400 ? "invalid" : error.code)}`);
    throw error;
  }
  revalidatePath("/", "layout");
  redirect(`${back}?notice=${notice}`);
}

function parsed<T>(schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new AppError("invalid", 400, "invalid form");
  return r.data;
}

export async function suspendSellerAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("/admin/sellers", "seller-suspended", async () => {
    const id = parsed(idSchema, text(fd, "id"));
    await suspendSeller(admin, id, parsed(reasonBodySchema, { reason: text(fd, "reason") }).reason);
  });
}

export async function reinstateSellerAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("/admin/sellers", "seller-reinstated", async () => {
    const id = parsed(idSchema, text(fd, "id"));
    await reinstateSeller(admin, id, parsed(noteBodySchema, { note: text(fd, "reason") || undefined }).note);
  });
}

export async function removeProductAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("/admin/products", "product-removed", async () => {
    const id = parsed(idSchema, text(fd, "id"));
    await removeProduct(admin, id, parsed(reasonBodySchema, { reason: text(fd, "reason") }).reason);
  });
}

export async function restoreProductAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("/admin/products", "product-restored", async () => {
    const id = parsed(idSchema, text(fd, "id"));
    await restoreProduct(admin, id, parsed(noteBodySchema, { note: text(fd, "reason") || undefined }).note);
  });
}

export async function featureProductAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("/admin/products", "product-featured", async () => {
    await featureProduct(admin, parsed(idSchema, text(fd, "id")));
  });
}

export async function unfeatureProductAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("/admin/products", "product-unfeatured", async () => {
    await unfeatureProduct(admin, parsed(idSchema, text(fd, "id")));
  });
}

/**
 * The amount typed, read by parseMoney in the order's currency; blank → all that remains. A refusal goes back as its
 * own code (the page has words for each), never as the typed text.
 */
function amountOf(raw: string, currency: string): number | undefined {
  const amount = parseMoney(raw, currency);
  if (!amount.ok) {
    if (amount.code === "empty") return undefined;
    throw new AppError(amount.code === "too_large" ? "refund_exceeds_remaining" : `amount_${amount.code}`, 422, amount.message);
  }
  return amount.minor;
}

export async function testDisputeAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  const id = parsed(idSchema, text(fd, "id"));
  await run(`/admin/orders/${encodeURIComponent(id)}`, "test-dispute", async () => {
    await simulateTestDispute(id, parsed(z.enum(TEST_DISPUTE_STEPS), text(fd, "step")), admin);
  });
}

export async function refundOrderAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  const id = parsed(idSchema, text(fd, "id"));
  await run(`/admin/orders/${encodeURIComponent(id)}`, "refunded", async () => {
    const order = await getDb().order.findUnique({ where: { id }, select: { currency: true } });
    if (!order) throw notFound("order");
    const amountCents = amountOf(text(fd, "amount"), order.currency);
    await refundOrder({
      orderId: id,
      ...(amountCents !== undefined ? { amountCents } : {}),
      reason: parsed(refundReasonSchema, text(fd, "reason")),
      actor: { kind: "operator", email: admin.email },
    });
  });
}
