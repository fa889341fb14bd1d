"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireAdmin } from "@/lib/admin/session";
import { AppError } from "@/lib/http/errors";
import { hideReview, unhideReview } from "@/lib/reviews/respond";
import { hideBodySchema, reviewIdSchema, unhideBodySchema } from "@/lib/reviews/schemas";
import { reviewErrorCode, type ReviewNotice } from "./messages";

// Each action checks the operator itself (a server action is its own endpoint); Next checks the Origin of every
// action post. The redirect target is a fixed path; a refusal goes back as a known code, never as text.

const text = (fd: FormData, name: string) => {
  const v = fd.get(name);
  return typeof v === "string" ? v : "";
};

async function run(notice: ReviewNotice, act: () => Promise<unknown>): Promise<never> {
  try {
    await act();
  } catch (error) {
    if (error instanceof AppError && error.status < 500) redirect(`/admin/reviews?error=${reviewErrorCode(error.code)}`);
    throw error;
  }
  revalidatePath("/", "layout");
  redirect(`/admin/reviews?notice=${notice}`);
}

function parsed<T>(r: { success: true; data: T } | { success: false }): T {
  if (!r.success) throw new AppError("invalid", 400, "invalid form");
  return r.data;
}

export async function hideReviewAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("review-hidden", async () => {
    const id = parsed(reviewIdSchema.safeParse(text(fd, "id")));
    await hideReview(admin, id, parsed(hideBodySchema.safeParse({ reason: text(fd, "reason") })).reason);
  });
}

export async function unhideReviewAction(fd: FormData): Promise<void> {
  const admin = await requireAdmin();
  await run("review-shown", async () => {
    const id = parsed(reviewIdSchema.safeParse(text(fd, "id")));
    await unhideReview(admin, id, parsed(unhideBodySchema.safeParse({ note: text(fd, "reason") || undefined })).note);
  });
}
