import type { AppError } from "@/lib/http/errors";
import { parseMoney } from "@/lib/money/parse-money";
import { formatPrice, SUPPORTED_CURRENCIES } from "@/lib/pricing";
import { formValues, problemFieldErrors, type FormState } from "@/components/dashboard/form-state";

/**
 * The coupon form as createCoupon's input: form text into the body's types (whole numbers, the amount off read by
 * parseMoney in the chosen currency, the expiry day as the end of that day, UTC); createCoupon judges it. An amount
 * it cannot read it reports itself, in the form's words.
 */

const FIELDS = ["code", "kind", "percent_off", "amount_off", "currency", "expires_on", "max_redemptions"] as const;

/** A whole number from a form field; undefined when empty, NaN when not a whole number. */
function wholeNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  return /^\d{1,7}$/.test(t) ? Number(t) : Number.NaN;
}

export interface CouponForm {
  values: FormState["values"];
  body: Record<string, unknown>;
  /** What could not be translated (an amount parseMoney refuses), in the form's words. */
  errors: FormState["errors"];
  /** The currency the amount was read in. */
  currency: string;
}

export function readCouponForm(fd: FormData, locale: string | undefined): CouponForm {
  const values = formValues(fd, FIELDS, ["product_ids"]);
  const kind = String(values.kind);
  const chosen = String(values.currency).toLowerCase();
  // Read in the chosen currency; an unknown one is refused by the schema, and the amount read as dollars meanwhile.
  const currency = (SUPPORTED_CURRENCIES as readonly string[]).includes(chosen) ? chosen : "usd";
  const amount = kind === "amount" ? parseMoney(String(values.amount_off), currency, { locale }) : null;
  const errors: FormState["errors"] = {};
  if (amount && !amount.ok) errors.amount_off = [amount.code === "empty" ? "Enter the amount off." : amount.message];
  const expires = String(values.expires_on).trim();
  const body = {
    code: String(values.code),
    kind,
    ...(kind === "percent" ? { percent_off: wholeNumber(String(values.percent_off)) } : {}),
    ...(kind === "amount" ? { amount_off_cents: amount?.ok ? amount.minor : undefined, currency: chosen || undefined } : {}),
    // The form asks for a day; the code works through the end of that day, UTC.
    expires_at: expires === "" ? null : /^\d{4}-\d{2}-\d{2}$/.test(expires) ? `${expires}T23:59:59.999Z` : "not a day",
    max_redemptions: wholeNumber(String(values.max_redemptions)) ?? null,
    product_ids: values.product_ids,
  };
  return { values, body, errors, currency };
}

/** createCoupon's field problems next to the form's fields, in the coupon form's words. */
export function couponProblems(problem: AppError, form: CouponForm): FormState["errors"] {
  return problemFieldErrors(
    problem,
    {
      sent: form.body,
      rename: { amount_off_cents: "amount_off", expires_at: "expires_on" },
      numeric: new Set(["percent_off", "max_redemptions"]),
      skip: new Set(form.errors.amount_off ? ["amount_off_cents"] : []),
      word: (issue, message) => {
        if (issue.field === "expires_at")
          return /future/.test(issue.message) ? "The expiry must be in the future." : "Enter a day as YYYY-MM-DD, or leave it empty.";
        if (issue.field === "amount_off_cents" && form.body.kind === "amount")
          return `Enter an amount from ${formatPrice(1, form.currency)} to ${formatPrice(1_000_000, form.currency)}.`;
        return message;
      },
    },
    structuredClone(form.errors),
  );
}
