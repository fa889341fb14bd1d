"use server";

import { revalidatePath } from "next/cache";
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { createCoupon, deactivateCoupon } from "@/lib/coupons/manage-coupons";
import { createCouponInputSchema } from "@/lib/coupons/schemas";
import { AppError } from "@/lib/http/errors";
import { firstLanguageTag, parseMoney } from "@/lib/money/parse-money";
import { formatPrice, SUPPORTED_CURRENCIES } from "@/lib/pricing";
import { appErrorMessage, formValues, isNotFound, refused, zodFieldErrors, type FormState } from "@/components/dashboard/form-state";

const FIELDS = ["code", "kind", "percent_off", "amount_off", "currency", "expires_on", "max_redemptions"] as const;

/** A whole number from a form field; undefined when empty, NaN when not a whole number. */
function wholeNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  return /^\d{1,7}$/.test(t) ? Number(t) : Number.NaN;
}

export async function createCouponAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
  const values = formValues(fd, FIELDS, ["product_ids"]);
  const kind = String(values.kind);
  const currency = String(values.currency).toLowerCase();
  // Read in the chosen currency; an unknown one is refused by the schema, and the amount read as dollars meanwhile.
  const amountCurrency = (SUPPORTED_CURRENCIES as readonly string[]).includes(currency) ? currency : "usd";
  const amount =
    kind === "amount"
      ? parseMoney(String(values.amount_off), amountCurrency, { locale: firstLanguageTag((await headers()).get("accept-language")) })
      : null;
  const expires = String(values.expires_on).trim();
  const errors: FormState["errors"] = {};
  // The form asks for a day; the code works through the end of that day, UTC.
  const expiresAt = expires === "" ? null : /^\d{4}-\d{2}-\d{2}$/.test(expires) ? `${expires}T23:59:59.999Z` : "not a day";
  const parsed = createCouponInputSchema.safeParse(
    {
      code: String(values.code),
      kind,
      ...(kind === "percent" ? { percent_off: wholeNumber(String(values.percent_off)) } : {}),
      ...(kind === "amount" ? { amount_off_cents: amount?.ok ? amount.minor : undefined, currency: currency || undefined } : {}),
      expires_at: expiresAt,
      max_redemptions: wholeNumber(String(values.max_redemptions)) ?? null,
      product_ids: values.product_ids,
    },
    { reportInput: true },
  );
  if (!parsed.success || (amount && !amount.ok)) {
    if (!parsed.success) {
      zodFieldErrors(
        parsed.error,
        { rename: { amount_off_cents: "amount_off", expires_at: "expires_on" }, numeric: new Set(["percent_off", "max_redemptions"]) },
        errors,
      );
    }
    if (errors.expires_on) errors.expires_on = ["Enter a day as YYYY-MM-DD, or leave it empty."];
    if (amount && !amount.ok) errors.amount_off = [amount.code === "empty" ? "Enter the amount off." : amount.message];
    else if (errors.amount_off && kind === "amount") {
      errors.amount_off = [`Enter an amount from ${formatPrice(1, amountCurrency)} to ${formatPrice(1_000_000, amountCurrency)}.`];
    }
    return refused(values, errors);
  }
  let couponId: string;
  try {
    couponId = (await createCoupon(developer.id, parsed.data)).id;
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    if (error.code === "coupon_code_taken") return refused(values, { code: [error.detail] });
    if (error.code === "invalid_product_ids") return refused(values, { product_ids: ["Choose among your own products."] });
    if (error.code === "invalid_body") return refused(values, { expires_on: ["The expiry must be in the future."] });
    return refused(values, {}, appErrorMessage(error));
  }
  revalidatePath("/dashboard/coupons");
  // The page repeats the discount as stored, named by the coupon's id.
  redirect(`/dashboard/coupons?done=created&coupon=${encodeURIComponent(couponId)}#coupons`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and coerced here.
export async function deactivateCouponAction(rawCouponId: unknown): Promise<void> {
  const { developer } = await requireSeller();
  try {
    await deactivateCoupon(developer.id, String(rawCouponId));
  } catch (error) {
    if (isNotFound(error)) notFound();
    throw error;
  }
  revalidatePath("/dashboard/coupons");
  redirect(`/dashboard/coupons?done=deactivated#coupons`);
}
