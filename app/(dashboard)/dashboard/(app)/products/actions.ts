"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { AppError } from "@/lib/http/errors";
import { badArguments, formOf, idempotencyKeyOf, idOf, runOperation, type ActionOutcome } from "@/lib/transports/action";
import { paths } from "@/lib/urls";
import { refusalNotice, sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { appErrorMessage, refused, type FormState } from "@/components/dashboard/form-state";
import {
  chosenFiles,
  productProblems,
  readProductForm,
  refusedProductForm,
  uploadProblems,
  withStoredFiles,
  type ProductForm,
} from "@/components/dashboard/product-form-data";

/** The publish gate's refusals, which the product pages explain (a relist refused). */
const PUBLISH_GATE = ["payout-account-required", "seller-suspended", "seller-profile-incomplete", "product-not-ready"];

/** A refusal of the product's save shown on the form: a few in the form's words, field problems under their fields. */
function refusedBy(problem: AppError, form: ProductForm): FormState {
  if (problem.code === "plugin_id_taken") return refusedProductForm(form, { plugin_id: [problem.detail] });
  // The publish gate: the whole reason on top, and the price marked (what a payout account is needed for).
  if (problem.code === "payout_account_required")
    return refusedProductForm(
      form,
      { price: ["A paid listing needs a ready payout account: connect one under Payouts first."] },
      appErrorMessage(problem),
    );
  // The profile lacks what a paid listing shows: the reason on top with the way to the profile, the price marked.
  if (problem.code === "seller_profile_incomplete") {
    const price = ["A paid listing needs your refund policy and support contact: add them to your profile first."];
    return {
      ...refusedProductForm(form, { price }, appErrorMessage(problem)),
      link: { href: paths.profileSupport, label: "Add them to your profile" },
    };
  }
  const errors = productProblems(problem, form);
  if (Object.keys(errors).length === 0) return refusedProductForm(form, {}, appErrorMessage(problem));
  return refusedProductForm(form, errors, problem.status === 400 ? undefined : appErrorMessage(problem));
}

type Saved = ActionOutcome<{ product: { id: string } }>;

/**
 * The product form, saved: read into the operations' input; when it chose image files (or could not translate
 * something), checked whole first (checkSellerProduct), so that files are stored (storeProductImages) only for a form
 * that is otherwise valid and a refused form leaves nothing stored; then saved with the stored files' paths.
 */
async function saveProduct(fd: FormData, currentIcon: string | null, save: (body: Record<string, unknown>) => Promise<Saved>) {
  let form = readProductForm(fd, currentIcon);
  const files = chosenFiles(form);
  const untranslated = Object.keys(form.errors).length > 0;
  if (untranslated || files.length > 0) {
    const check = await runOperation("checkSellerProduct", { body: form.body });
    if (!check.ok) {
      const problem = sellerRefusal(check.problem);
      const errors = problem.status === 400 ? productProblems(problem, form, structuredClone(form.errors)) : form.errors;
      return { ok: false as const, state: refusedProductForm(form, errors, problem.status === 400 ? undefined : appErrorMessage(problem)) };
    }
    if (untranslated) return { ok: false as const, state: refusedProductForm(form, form.errors) };
  }
  if (files.length > 0) {
    const stored = await runOperation<{ paths: string[] }>("storeProductImages", { body: { files } });
    if (!stored.ok) {
      const problem = sellerRefusal(stored.problem);
      const aboutFiles = [400, 413, 415].includes(problem.status);
      return {
        ok: false as const,
        state: refusedProductForm(form, aboutFiles ? uploadProblems(problem, form) : {}, aboutFiles ? undefined : appErrorMessage(problem)),
      };
    }
    form = withStoredFiles(form, stored.output.paths);
  }
  const saved = await save(form.body);
  if (!saved.ok) return { ok: false as const, state: refusedBy(sellerRefusal(saved.problem), form) };
  return { ok: true as const, id: saved.output.product.id };
}

/** Everything that shows a product: the dashboard, the store's pages and search. */
function revalidateProduct(id: string) {
  revalidatePath("/dashboard", "layout");
  revalidatePath("/");
  revalidatePath(`/products/${id}`);
}

export async function createProductAction(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  const idempotencyKey = idempotencyKeyOf(fd);
  const saved = await saveProduct(fd, null, (body) => runOperation("createSellerProduct", { body, idempotencyKey }));
  if (!saved.ok) return saved.state;
  revalidateProduct(saved.id);
  redirect(`/dashboard/products/${encodeURIComponent(saved.id)}?notice=product-created`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function updateProductAction(rawProductId: unknown, _prev: FormState, form: unknown): Promise<FormState> {
  const productId = idOf(rawProductId, 64);
  const fd = formOf(form);
  // The saved icon, kept when the form gives neither a file nor an address.
  const current = await runOperation<{ product: { id: string; icon_url: string } }>("getSellerProduct", { params: { id: productId } });
  if (!current.ok) return refused(readProductForm(fd, null).values, {}, appErrorMessage(sellerRefusal(current.problem)));
  const id = current.output.product.id;
  const saved = await saveProduct(fd, current.output.product.icon_url, (body) => runOperation("updateSellerProduct", { params: { id }, body }));
  if (!saved.ok) return saved.state;
  revalidateProduct(id);
  redirect(`/dashboard/products/${encodeURIComponent(id)}?notice=product-saved`);
}

/** Publish a draft (publishSellerProduct); `back` is where the button was ("list" or "edit"). What is missing shows on the product's page. */
export async function publishProductAction(rawProductId: unknown, back: unknown): Promise<void> {
  const productId = idOf(rawProductId, 64);
  const page = back === "edit" ? `/dashboard/products/${encodeURIComponent(productId)}` : "/dashboard/products";
  const outcome = await runOperation("publishSellerProduct", { params: { id: productId } });
  if (!outcome.ok) {
    const problem = sellerRefusal(outcome.problem);
    const edit = `/dashboard/products/${encodeURIComponent(productId)}`;
    redirect(`${problem.code === "product_not_ready" ? edit : page}?error=${refusalNotice(problem, PUBLISH_GATE)}`);
  }
  revalidateProduct(productId);
  redirect(`${page}?notice=product-published`);
}

/** Unlist or relist; `back` is where the button was ("list" or "edit"). */
export async function setProductStatusAction(rawProductId: unknown, status: unknown, back: unknown): Promise<void> {
  const productId = idOf(rawProductId, 64);
  if (status !== "active" && status !== "unlisted") badArguments("Unknown product status.");
  const page = back === "edit" ? `/dashboard/products/${encodeURIComponent(productId)}` : "/dashboard/products";
  const outcome = await runOperation("setSellerProductStatus", { params: { id: productId }, body: { status } });
  // The publish gate refused a relist: said on the page instead of the error screen.
  if (!outcome.ok) redirect(`${page}?error=${refusalNotice(sellerRefusal(outcome.problem), PUBLISH_GATE)}`);
  revalidateProduct(productId);
  redirect(`${page}?notice=${status === "active" ? "product-relisted" : "product-unlisted"}`);
}
