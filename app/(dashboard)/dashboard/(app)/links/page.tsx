import type { Metadata } from "next";
import { listCoupons } from "@/lib/coupons/manage-coupons";
import { listCheckoutLinks } from "@/lib/links/manage-links";
import type { CheckoutLinkOut } from "@/lib/links/schemas";
import { listSellerProducts } from "@/lib/selling/products";
import { absoluteUrl, paths } from "@/lib/urls";
import { LinkForm } from "@/components/links/link-form";
import { formatDay, param } from "@/components/dashboard/format";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { Badge } from "@/components/ui/badge";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonSecondary, card } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { createCheckoutLinkAction, deactivateCheckoutLinkAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Checkout links", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, string> = {
  created: "Checkout link created. Share its address; its visits, checkouts and sales are counted here and on the Sales page.",
  deactivated: "Checkout link turned off. Buyers who open it are told it does not work; checkouts already open keep their price.",
};

function state(l: CheckoutLinkOut, now = Date.now()): { label: string; tone: "success" | "neutral" | "accent" } {
  if (!l.active) return { label: "Off", tone: "neutral" };
  if (l.expires_at && Date.parse(l.expires_at) <= now) return { label: "Expired", tone: "neutral" };
  if (l.max_uses !== null && l.uses >= l.max_uses) return { label: "Used up", tone: "accent" };
  return { label: "Active", tone: "success" };
}

/** A coupon a new link may preset: active and not past its expiry (createCheckoutLink checks the rest). */
function usable(c: { active: boolean; expires_at: string | null }, now = Date.now()): boolean {
  return c.active && (!c.expires_at || Date.parse(c.expires_at) > now);
}

function presets(l: CheckoutLinkOut): string {
  return [
    `${l.quantity} ${l.quantity === 1 ? "seat" : "seats"}`,
    ...(l.coupon_code ? [`coupon ${l.coupon_code}`] : []),
    ...(l.interval ? [l.interval === "month" ? "monthly" : "yearly"] : []),
  ].join(" · ");
}

export default async function CheckoutLinksPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const [links, products, coupons] = await Promise.all([
    listCheckoutLinks(developer.id),
    listSellerProducts(developer.id),
    listCoupons(developer.id),
  ]);
  const done = DONE[param(query.done)];
  const usableCoupons = coupons.filter((c) => usable(c));
  const base = absoluteUrl(paths.checkoutLink(developer.id, "x")).replace(/\/x$/, "");

  return (
    <>
      <Notice searchParams={query} />
      {done ? (
        <div role="status" id="links-notice" className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
          {done}
        </div>
      ) : null}
      <PageHeader
        title="Checkout links"
        description="Shareable addresses that each sell one product with preset seats, a coupon and a billing period, optionally until a day or for a number of purchases. They open the same checkout as the product page."
        actions={
          <a href="#new-link" className={buttonSecondary}>
            New link
          </a>
        }
      />

      <Section id="links" title="Your links" description={`${links.length} ${links.length === 1 ? "link" : "links"}, newest first.`} className="mt-8">
        {links.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No checkout links yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              Create one below, then share its address in a newsletter, a post or your own site.
            </p>
          </div>
        ) : (
          <ScrollTable label="Checkout links" minWidth="sm:min-w-[64rem]">
            <caption className="sr-only">Checkout links with their address, product, presets, counters and status</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  Link
                </th>
                <th scope="col" className={th}>
                  Product
                </th>
                <th scope="col" className={th}>
                  Expires
                </th>
                <th scope="col" className={thNum}>
                  Visits
                </th>
                <th scope="col" className={thNum}>
                  Checkouts
                </th>
                <th scope="col" className={thNum}>
                  Sales
                </th>
                <th scope="col" className={thNum}>
                  Uses
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
              {links.map((l) => {
                const s = state(l);
                return (
                  <tr key={l.id} data-testid={`link-${l.slug}`}>
                    <td data-label="Link" className={td}>
                      <div className="font-medium text-slate-900">{l.name}</div>
                      <div className="mt-1 flex flex-wrap items-center gap-2">
                        <code id={`link-url-${l.id}`} className="font-mono text-xs break-all text-slate-700">
                          {l.url}
                        </code>
                        <CopyButton text={l.url} label={`address of ${l.name}`} selectTargetId={`link-url-${l.id}`} className="px-2 py-1 text-xs" />
                      </div>
                    </td>
                    <td data-label="Product" className={td}>
                      {l.product_name}
                      <div className="text-xs text-slate-600">{presets(l)}</div>
                    </td>
                    <td data-label="Expires" className={td}>
                      {l.expires_at ? <time dateTime={l.expires_at}>{formatDay(new Date(l.expires_at))}</time> : "Never"}
                    </td>
                    <td data-label="Visits" className={tdNum}>
                      {l.visits}
                    </td>
                    <td data-label="Checkouts" className={tdNum}>
                      {l.checkouts}
                    </td>
                    <td data-label="Sales" className={tdNum}>
                      {l.sales}
                    </td>
                    <td data-label="Uses" className={tdNum}>
                      {l.uses}
                      {l.max_uses !== null ? ` of ${l.max_uses}` : ""}
                    </td>
                    <td data-label="Status" className={td}>
                      <Badge tone={s.tone}>{s.label}</Badge>
                    </td>
                    <td className={td}>
                      {l.active ? (
                        <form action={deactivateCheckoutLinkAction.bind(null, l.id)}>
                          <button type="submit" className={`${buttonSecondary} px-3 py-1.5`}>
                            Turn off<span className="sr-only"> link {l.name}</span>
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

      <Section id="new-link" title="New checkout link" className="mt-12">
        <div className={`${card} p-6`}>
          {products.length === 0 ? (
            <p className="text-sm text-slate-600">Add a product first: a checkout link sells one of your products.</p>
          ) : (
            <LinkForm
              action={createCheckoutLinkAction}
              products={products.filter((p) => p.status === "active" || p.status === "unlisted").map((p) => ({ id: p.id, name: p.name }))}
              coupons={usableCoupons.map((c) => ({
                code: c.code,
                label: `${c.code} (${c.kind === "percent" ? `${c.percent_off ?? 0} % off` : "amount off"})`,
              }))}
              linkBase={base}
              idempotencyKey={crypto.randomUUID()}
            />
          )}
        </div>
      </Section>
    </>
  );
}
