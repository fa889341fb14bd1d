"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, idOf, runOperation, textOf } from "@/lib/transports/action";
import { parseMoney } from "@/lib/money/parse-money";
import { refusalNotice, sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { appErrorMessage, formValues, problemFieldErrors, refused, type FormState } from "@/components/dashboard/form-state";
import { requestLocale } from "@/components/dashboard/request-locale";

const PAGE = "/dashboard/upgrades";
const FIELDS = ["from_product_id", "to_product_id", "pricing", "price", "retire_source"] as const;

export async function createUpgradeOfferAction(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  const values = formValues(fd, FIELDS);
  const pricing = textOf(fd, "pricing");
  const errors: FormState["errors"] = {};
  let priceCents: number | undefined;
  if (pricing === "fixed") {
    // The price is typed in the currency of the product upgraded to: read by parseMoney in it; the API takes minor units.
    const products = await runOperation<{ products: Array<{ id: string; currency: string }> }>("listSellerProducts");
    if (!products.ok) return refused(values, {}, appErrorMessage(sellerRefusal(products.problem)));
    const currency = products.output.products.find((p) => p.id === textOf(fd, "to_product_id"))?.currency ?? "usd";
    const price = parseMoney(textOf(fd, "price"), currency, { locale: await requestLocale() });
    if (price.ok) priceCents = price.minor;
    else errors.price = [price.code === "empty" ? "Enter the price of one seat." : price.message];
  }
  if (Object.keys(errors).length > 0) return refused(values, errors);
  const body = {
    from_product_id: textOf(fd, "from_product_id"),
    to_product_id: textOf(fd, "to_product_id"),
    pricing,
    ...(priceCents !== undefined ? { price_cents: priceCents } : {}),
    retire_source: textOf(fd, "retire_source") !== "keep",
  };
  const outcome = await runOperation("createUpgradeOffer", { body, idempotencyKey: idempotencyKeyOf(fd) });
  if (!outcome.ok) {
    const problem = outcome.problem;
    if (problem.status === 401 || problem.code === "no_developer_profile") sellerRefusal(problem);
    // A product that is not the seller's (404) is shown on the form, not as the 404 page: the seller picked it there.
    if (problem.code === "product_not_found") return refused(values, { to_product_id: ["Choose among your own products."] });
    if (problem.code === "upgrade_currency_mismatch" || problem.code === "upgrade_same_product")
      return refused(values, { to_product_id: [problem.detail] });
    if (problem.code === "upgrade_offer_exists") return refused(values, {}, problem.detail);
    const fieldErrors = problemFieldErrors(problem, { sent: body, rename: { price_cents: "price" } });
    return refused(values, fieldErrors, Object.keys(fieldErrors).length === 0 ? appErrorMessage(problem) : undefined);
  }
  revalidatePath(PAGE);
  redirect(`${PAGE}?done=created#upgrades`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function setUpgradeOfferActiveAction(rawOfferId: unknown, rawActive: unknown): Promise<void> {
  const outcome = await runOperation("updateUpgradeOffer", { params: { id: idOf(rawOfferId) }, body: { active: rawActive === true } });
  revalidatePath(PAGE);
  redirect(
    outcome.ok
      ? `${PAGE}?done=${rawActive === true ? "on" : "off"}#upgrades`
      : `${PAGE}?error=${refusalNotice(sellerRefusal(outcome.problem))}#upgrades`,
  );
}
