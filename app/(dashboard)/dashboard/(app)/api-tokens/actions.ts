"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { AppError } from "@/lib/http/errors";
import { createSellerToken, createTokenInputSchema, revokeSellerToken } from "@/lib/seller-api/tokens";
import { appErrorMessage, formValues, isNotFound, refused, zodFieldErrors } from "@/components/dashboard/form-state";
import type { TokenFormState } from "@/components/dashboard/api-token-form";

const EXPIRY_CHOICES = new Set(["never", "30", "90", "365"]);

/**
 * Creates a token and hands it back in the form's state, the one place it is ever shown: nothing is stored that could
 * show it again (the database keeps its SHA-256), so a reload of the page shows only its first characters.
 */
export async function createTokenAction(_prev: TokenFormState, fd: FormData): Promise<TokenFormState> {
  const { developer, email } = await requireSeller();
  const values = formValues(fd, ["name", "expiry"], ["scopes"]);
  const expiry = String(values.expiry || "never");
  const errors: TokenFormState["errors"] = {};
  if (!EXPIRY_CHOICES.has(expiry)) errors.expiry = ["Choose one of the options."];
  const parsed = createTokenInputSchema.safeParse(
    {
      name: String(values.name),
      scopes: values.scopes,
      ...(expiry !== "never" && EXPIRY_CHOICES.has(expiry) ? { expires_in_days: Number(expiry) } : {}),
    },
    { reportInput: true },
  );
  if (!parsed.success) zodFieldErrors(parsed.error, {}, errors);
  if (errors.scopes) errors.scopes = ["Tick at least one scope."];
  if (!parsed.success || Object.keys(errors).length > 0) return { ...refused(values, errors), created: null };
  try {
    const created = await createSellerToken(developer.id, email, parsed.data);
    revalidatePath("/dashboard/api-tokens");
    return {
      message: null,
      errors: {},
      values: {},
      created: { id: created.id, token: created.token, name: created.name, scopes: created.scopes, expires_at: created.expires_at },
    };
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    return { ...refused(values, {}, appErrorMessage(error)), created: null };
  }
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and coerced here.
export async function revokeTokenAction(rawTokenId: unknown): Promise<void> {
  const { developer } = await requireSeller();
  try {
    await revokeSellerToken(developer.id, String(rawTokenId));
  } catch (error) {
    if (isNotFound(error)) notFound();
    throw error;
  }
  revalidatePath("/dashboard/api-tokens");
  redirect("/dashboard/api-tokens?done=revoked#tokens");
}
