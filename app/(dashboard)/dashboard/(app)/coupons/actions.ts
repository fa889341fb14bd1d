"use server";

import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { formOf, idempotencyKeyOf, idOf, runOperation } from "@/lib/transports/action";
import { refusalNotice, sellerRefusal } from "@/app/(dashboard)/_lib/action-outcome";
import { couponProblems, readCouponForm } from "@/components/coupons/coupon-form-data";
import { appErrorMessage, refused, type FormState } from "@/components/dashboard/form-state";
import { requestLocale } from "@/components/dashboard/request-locale";

const PAGE = "/dashboard/coupons";

export async function createCouponAction(_prev: FormState, form: unknown): Promise<FormState> {
  const fd = formOf(form);
  // The amount off is read by parseMoney here; createCoupon gets minor units.
  const coupon = readCouponForm(fd, await requestLocale());
  const outcome = await runOperation<{ coupon: { id: string } }>("createCoupon", { body: coupon.body, idempotencyKey: idempotencyKeyOf(fd) });
  if (!outcome.ok) {
    const problem = sellerRefusal(outcome.problem);
    if (problem.code === "coupon_code_taken") return refused(coupon.values, { code: [problem.detail] });
    if (problem.code === "invalid_product_ids") return refused(coupon.values, { product_ids: ["Choose among your own products."] });
    // An amount parseMoney could not read is under its field with the rest (createCoupon found it missing).
    const errors = couponProblems(problem, coupon);
    return refused(coupon.values, errors, Object.keys(errors).length === 0 || problem.status !== 400 ? appErrorMessage(problem) : undefined);
  }
  revalidatePath(PAGE);
  // The page repeats the discount as stored, named by the coupon's id.
  redirect(`${PAGE}?done=created&coupon=${encodeURIComponent(outcome.output.coupon.id)}#coupons`);
}

// Bound arguments of a server action arrive from the browser as sent: typed `unknown` and checked by the operation.
export async function deactivateCouponAction(rawCouponId: unknown): Promise<void> {
  const outcome = await runOperation("deactivateCoupon", { params: { id: idOf(rawCouponId) } });
  revalidatePath(PAGE);
  redirect(outcome.ok ? `${PAGE}?done=deactivated#coupons` : `${PAGE}?error=${refusalNotice(sellerRefusal(outcome.problem))}#coupons`);
}
