"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";

const PAGE = "/dashboard/buy-button";

/** Back to the page with a notice: a known code (the page words it) and, for a verification, the origin it was about. */
function back(code: string, id?: string): never {
  revalidatePath(PAGE);
  redirect(`${PAGE}?done=${encodeURIComponent(code)}${id ? `&origin=${encodeURIComponent(id)}` : ""}#origins`);
}

export async function addEmbedOriginAction(form: unknown): Promise<void> {
  const fd = formOf(form);
  const outcome = await runOperation<{ origin: { id: string } }>("addEmbedOrigin", {
    body: { origin: textOf(fd, "origin") },
    idempotencyKey: idempotencyKeyOf(fd),
  });
  if (!outcome.ok) back(sellerRefusal(outcome.problem).code);
  back("added", outcome.output.origin.id);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function verifyEmbedOriginAction(rawId: unknown): Promise<void> {
  const id = idOf(rawId);
  const outcome = await runOperation("verifyEmbedOrigin", { params: { id } });
  // A failed check is recorded on the origin (its reason shows beside it).
  back(outcome.ok ? "verified" : sellerRefusal(outcome.problem).code, id);
}

export async function removeEmbedOriginAction(rawId: unknown): Promise<void> {
  const outcome = await runOperation("removeEmbedOrigin", { params: { id: idOf(rawId) } });
  back(outcome.ok ? "removed" : sellerRefusal(outcome.problem).code);
}
