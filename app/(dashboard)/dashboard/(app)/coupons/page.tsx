import type { Metadata } from "next";
import { listCoupons } from "@/lib/coupons/manage-coupons";
import type { CouponOut } from "@/lib/coupons/schemas";
import { listSellerProducts } from "@/lib/selling/products";
import { formatPrice } from "@/lib/pricing";
import { CouponForm } from "@/components/coupons/coupon-form";
import { formatDay, param } from "@/components/dashboard/format";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { Badge } from "@/components/ui/badge";
import { buttonSecondary, card } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { createCouponAction, deactivateCouponAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Coupons", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const CREATED_NEXT = "Buyers can enter it on the product page, and agents pass it as coupon_code.";
// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, string> = {
  created: `Coupon created. ${CREATED_NEXT}`,
  deactivated: "Coupon deactivated. Buyers can no longer apply it; checkouts already holding it keep their price.",
};

function discount(c: CouponOut): string {
  return c.kind === "percent" ? `${c.percent_off ?? 0} % off` : `${formatPrice(c.amount_off_cents ?? 0, c.currency ?? "usd")} off`;
}

function state(c: CouponOut, now = Date.now()): { label: string; tone: "success" | "neutral" | "accent" } {
  if (!c.active) return { label: "Deactivated", tone: "neutral" };
  if (c.expires_at && Date.parse(c.expires_at) <= now) return { label: "Expired", tone: "neutral" };
  if (c.max_redemptions !== null && c.redemptions >= c.max_redemptions) return { label: "Used up", tone: "accent" };
  return { label: "Active", tone: "success" };
}

export default async function CouponsPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const [coupons, products] = await Promise.all([listCoupons(developer.id), listSellerProducts(developer.id)]);
  const names = new Map(products.map((p) => [p.id, p.name]));
  const doneCode = param(query.done);
  const done = DONE[doneCode];
  // The discount as stored, repeated after creating it: the id names one of this seller's coupons or nothing.
  const created = doneCode === "created" ? coupons.find((c) => c.id === param(query.coupon)) : undefined;

  return (
    <>
      <Notice searchParams={query} />
      {done ? (
        <div role="status" id="coupons-notice" className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
          {created ? `Coupon created: ${created.code}, ${discount(created)}. ${CREATED_NEXT}` : done}
        </div>
      ) : null}
      <PageHeader
        title="Coupons"
        description="Discount codes for your products: a percentage or a fixed amount, with an optional expiry, redemption limit and product list. Buyers enter them on the product page; agents pass them to checkout."
        actions={
          <a href="#new-coupon" className={buttonSecondary}>
            New coupon
          </a>
        }
      />

      <Section
        id="coupons"
        title="Your coupons"
        description={`${coupons.length} ${coupons.length === 1 ? "coupon" : "coupons"}, newest first.`}
        className="mt-8"
      >
        {coupons.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No coupons yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">Create one below, then share its code with your buyers.</p>
          </div>
        ) : (
          <ScrollTable label="Coupons" minWidth="sm:min-w-[56rem]">
            <caption className="sr-only">Coupons with their discount, products, expiry, redemptions and status</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  Code
                </th>
                <th scope="col" className={th}>
                  Discount
                </th>
                <th scope="col" className={th}>
                  Products
                </th>
                <th scope="col" className={th}>
                  Expires
                </th>
                <th scope="col" className={thNum}>
                  Redemptions
                </th>
                <th scope="col" className={th}>
                  Status
                </th>
                <th scope="col" className={th}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {coupons.map((c) => {
                const s = state(c);
                return (
                  <tr key={c.id}>
                    <td data-label="Code" className={td}>
                      <code className="font-mono text-sm font-semibold text-slate-900">{c.code}</code>
                    </td>
                    <td data-label="Discount" className={td}>
                      {discount(c)}
                    </td>
                    <td data-label="Products" className={td}>
                      {c.product_ids.length === 0 ? "All products" : c.product_ids.map((id) => names.get(id) ?? id).join(", ")}
                    </td>
                    <td data-label="Expires" className={td}>
                      {c.expires_at ? <time dateTime={c.expires_at}>{formatDay(new Date(c.expires_at))}</time> : "Never"}
                    </td>
                    <td data-label="Redemptions" className={tdNum}>
                      {c.redemptions}
                      {c.max_redemptions !== null ? ` of ${c.max_redemptions}` : ""}
                    </td>
                    <td data-label="Status" className={td}>
                      <Badge tone={s.tone}>{s.label}</Badge>
                    </td>
                    <td className={td}>
                      {c.active ? (
                        <form action={deactivateCouponAction.bind(null, c.id)}>
                          <button type="submit" className={`${buttonSecondary} px-3 py-1.5`}>
                            Deactivate<span className="sr-only"> coupon {c.code}</span>
                          </button>
                        </form>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </ScrollTable>
        )}
      </Section>

      <Section id="new-coupon" title="New coupon" className="mt-12">
        <div className={`${card} p-6`}>
          <CouponForm
            action={createCouponAction}
            products={products.map((p) => ({ id: p.id, name: p.name, currency: p.currency }))}
            idempotencyKey={crypto.randomUUID()}
          />
        </div>
      </Section>
    </>
  );
}
