import { formValues, problemFieldErrors, type FormState } from "@/components/dashboard/form-state";
import type { AppError } from "@/lib/http/errors";

/**
 * The checkout link form as createCheckoutLink's input: form text into the body's types (whole numbers, the expiry
 * day as the end of that day, UTC, an empty choice as none); createCheckoutLink judges it.
 */

const LINK_FIELDS = ["product_id", "name", "slug", "quantity", "coupon_code", "interval", "expires_on", "max_uses"] as const;

/** A whole number from a form field; undefined when empty, NaN when not a whole number. */
function wholeNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === "") return undefined;
  return /^\d{1,7}$/.test(t) ? Number(t) : Number.NaN;
}

export interface LinkForm {
  values: FormState["values"];
  body: Record<string, unknown>;
}

export function readLinkForm(fd: FormData): LinkForm {
  const values = formValues(fd, LINK_FIELDS);
  const text = (name: (typeof LINK_FIELDS)[number]) => String(values[name]).trim();
  const expires = text("expires_on");
  const body = {
    product_id: text("product_id"),
    name: text("name"),
    slug: text("slug"),
    quantity: wholeNumber(text("quantity")) ?? 1,
    coupon_code: text("coupon_code") || null,
    interval: text("interval") || null,
    // The form asks for a day; the link works through the end of that day, UTC.
    expires_at: expires === "" ? null : /^\d{4}-\d{2}-\d{2}$/.test(expires) ? `${expires}T23:59:59.999Z` : "not a day",
    max_uses: wholeNumber(text("max_uses")) ?? null,
  };
  return { values, body };
}

/** createCheckoutLink's field problems next to the form's fields, in the form's words. */
export function linkProblems(problem: AppError, form: LinkForm): FormState["errors"] {
  return problemFieldErrors(problem, {
    sent: form.body,
    rename: { expires_at: "expires_on" },
    numeric: new Set(["quantity", "max_uses"]),
    word: (issue, message) => {
      if (issue.field === "expires_at")
        return /future/.test(issue.message) ? "The expiry must be in the future." : "Enter a day as YYYY-MM-DD, or leave it empty.";
      if (issue.field === "coupon_code") return "Choose one of your active coupons that applies to this product, or none.";
      return message;
    },
  });
}
