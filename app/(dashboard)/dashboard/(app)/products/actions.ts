"use server";

import { revalidatePath } from "next/cache";
import { notFound, redirect } from "next/navigation";
import { requireSeller } from "@/lib/auth/next-session";
import { createProduct, getSellerProduct, setProductStatus, updateProduct } from "@/lib/dashboard/products";
import { AppError } from "@/lib/http/errors";
import { PRODUCT_STATUSES, type ProductStatus } from "@/lib/marketplace/constants";
import { appErrorMessage, isNotFound, refused, type FormState } from "@/components/dashboard/form-state";
import { paths } from "@/lib/urls";
import { readProductForm } from "../../../_lib/product-form-data";

/** A refusal from lib/ shown on the form: a taken plugin id belongs to its field, anything else to the whole form. */
function refusedBy(error: unknown, values: FormState["values"]): FormState {
  if (!(error instanceof AppError) || error.status >= 500) throw error;
  if (error.code === "plugin_id_taken") return refused(values, { plugin_id: [error.detail] });
  // The publish gate: the whole reason on top, and the price marked (what a payout account is needed for).
  if (error.code === "payout_account_required") {
    return refused(values, { price: ["A paid listing needs a ready payout account: connect one under Payouts first."] }, appErrorMessage(error));
  }
  // The profile lacks what a paid listing shows: the reason on top with the way to the profile, the price marked.
  if (error.code === "seller_profile_incomplete") {
    return {
      ...refused(
        values,
        { price: ["A paid listing needs your refund policy and support contact: add them to your profile first."] },
        appErrorMessage(error),
      ),
      link: { href: paths.profileSupport, label: "Add them to your profile" },
    };
  }
  const field = error.extra.errors?.[0];
  if (field?.name === "download_url")
    return refused(values, { download_url: [`${field.message.charAt(0).toUpperCase()}${field.message.slice(1)}.`] });
  return refused(values, {}, appErrorMessage(error));
}

/** Everything that shows a product: the dashboard, the store's pages and search. */
function revalidateProduct(id: string) {
  revalidatePath("/dashboard", "layout");
  revalidatePath("/");
  revalidatePath(`/products/${id}`);
}

export async function createProductAction(_prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
  const form = await readProductForm(fd, null, developer.id);
  if (!form.ok) return form.state;
  let id: string;
  try {
    id = (await createProduct(developer.id, form.input)).id;
  } catch (error) {
    return refusedBy(error, form.values);
  }
  revalidateProduct(id);
  redirect(`/dashboard/products/${encodeURIComponent(id)}?notice=product-created`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and coerced here.
export async function updateProductAction(productId: unknown, _prev: FormState, fd: FormData): Promise<FormState> {
  const { developer } = await requireSeller();
  let current: Awaited<ReturnType<typeof getSellerProduct>>;
  try {
    current = await getSellerProduct(developer.id, String(productId));
  } catch (error) {
    if (isNotFound(error)) notFound();
    throw error;
  }
  const form = await readProductForm(fd, current.iconUrl, developer.id);
  if (!form.ok) return form.state;
  try {
    await updateProduct(developer.id, current.id, form.input);
  } catch (error) {
    if (isNotFound(error)) notFound();
    return refusedBy(error, form.values);
  }
  revalidateProduct(current.id);
  redirect(`/dashboard/products/${encodeURIComponent(current.id)}?notice=product-saved`);
}

/** Unlist or relist; `back` is where the button was ("list" or "edit"). */
export async function setProductStatusAction(rawProductId: unknown, status: ProductStatus, back: unknown): Promise<void> {
  const productId = String(rawProductId);
  const { developer } = await requireSeller();
  if (!PRODUCT_STATUSES.includes(status)) throw new AppError("invalid_status", 400, "Unknown product status.");
  const page = back === "edit" ? `/dashboard/products/${encodeURIComponent(productId)}` : "/dashboard/products";
  try {
    await setProductStatus(developer.id, productId, status);
  } catch (error) {
    if (isNotFound(error)) notFound();
    // The publish gate refused a relist: say why on the page instead of the error screen.
    if (error instanceof AppError && ["payout_account_required", "seller_suspended", "seller_profile_incomplete"].includes(error.code)) {
      redirect(`${page}?error=${error.code.replace(/_/g, "-")}`);
    }
    throw error;
  }
  revalidateProduct(productId);
  const notice = status === "active" ? "product-relisted" : "product-unlisted";
  redirect(back === "edit" ? `/dashboard/products/${encodeURIComponent(productId)}?notice=${notice}` : `/dashboard/products?notice=${notice}`);
}
