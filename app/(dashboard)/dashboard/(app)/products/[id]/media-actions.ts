"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import { sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { MEDIA_NOTICES } from "@/components/dashboard/media-notices";

/**
 * The product page's Media section: an item's alt text and caption saved, an item moved a place, an item deleted,
 * each through its operation (updateProductMedia, moveProductMedia, deleteProductMedia). The outcome comes back as a
 * code the section words (components/dashboard/media-notices.ts). Uploads go to the upload route itself
 * (components/dashboard/media-upload.tsx): a server action carries at most 4 MB.
 */
function done(productId: string, outcome: Awaited<ReturnType<typeof runOperation>>, success: string): never {
  const page = `/dashboard/products/${encodeURIComponent(productId)}`;
  revalidatePath(page);
  if (outcome.ok) redirect(`${page}?media=${success}#media`);
  const problem = sellerRefusal(outcome.problem);
  redirect(`${page}?media=${problem.code in MEDIA_NOTICES ? problem.code : "failed"}#media`);
}

export async function saveMediaTextAction(rawProductId: unknown, rawMediaId: unknown, form: unknown): Promise<void> {
  const id = idOf(rawProductId);
  const mediaId = idOf(rawMediaId);
  const fd = formOf(form);
  const outcome = await runOperation("updateProductMedia", {
    params: { id, media_id: mediaId },
    body: { alt: textOf(fd, "alt"), caption: textOf(fd, "caption") },
  });
  done(id, outcome, "saved");
}

export async function moveMediaAction(rawProductId: unknown, rawMediaId: unknown, rawDirection: unknown): Promise<void> {
  const id = idOf(rawProductId);
  const mediaId = idOf(rawMediaId);
  const outcome = await runOperation("moveProductMedia", { params: { id, media_id: mediaId }, body: { direction: idOf(rawDirection, 8) } });
  done(id, outcome, "moved");
}

export async function deleteMediaAction(rawProductId: unknown, rawMediaId: unknown): Promise<void> {
  const id = idOf(rawProductId);
  const mediaId = idOf(rawMediaId);
  const outcome = await runOperation("deleteProductMedia", { params: { id, media_id: mediaId } });
  done(id, outcome, "deleted");
}
