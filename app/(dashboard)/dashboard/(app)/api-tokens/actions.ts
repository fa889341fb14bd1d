"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, idOf, runOperation } from "@/lib/transports/action";
import { refusalNotice, sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { formValues, problemRefusal, refused } from "@/components/dashboard/form-state";
import type { TokenFormState } from "@/components/dashboard/api-token-form";

const PAGE = "/dashboard/api-tokens";

/** The form's expiry choices, as createSellerToken's `expires_in_days` (never: none). */
const EXPIRY_DAYS: Readonly<Record<string, number | null>> = { never: null, "30": 30, "90": 90, "365": 365 };

type Created = NonNullable<TokenFormState["created"]>;

/**
 * Creates a token and hands it back in the form's state, the one place it is ever shown: nothing is stored that could
 * show it again (the database keeps its SHA-256), so a reload of the page shows only its first characters.
 */
export async function createTokenAction(_prev: TokenFormState, form: unknown): Promise<TokenFormState> {
  const fd = formOf(form);
  const values = formValues(fd, ["name", "expiry"], ["scopes"]);
  const days = EXPIRY_DAYS[String(values.expiry || "never")];
  if (days === undefined) return { ...refused(values, { expiry: ["Choose one of the options."] }), created: null };
  const body = { name: String(values.name), scopes: values.scopes, ...(days !== null ? { expires_in_days: days } : {}) };
  const outcome = await runOperation<{ token: Created }>("createSellerToken", { body, idempotencyKey: idempotencyKeyOf(fd) });
  if (!outcome.ok) {
    const scopes = (issue: { field: string }, message: string) => (issue.field === "scopes" ? "Tick at least one scope." : message);
    return { ...problemRefusal(sellerRefusal(outcome.problem), values, { sent: body, word: scopes }), created: null };
  }
  revalidatePath(PAGE);
  const { id, token, name, scopes, expires_at } = outcome.output.token;
  return { message: null, errors: {}, values: {}, created: { id, token, name, scopes, expires_at } };
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function revokeTokenAction(rawTokenId: unknown): Promise<void> {
  const outcome = await runOperation("revokeSellerToken", { params: { id: idOf(rawTokenId) } });
  revalidatePath(PAGE);
  redirect(outcome.ok ? `${PAGE}?done=revoked#tokens` : `${PAGE}?error=${refusalNotice(sellerRefusal(outcome.problem))}`);
}
