import type { Metadata } from "next";
import { listUpgradeOffers } from "@/lib/upgrades/manage-offers";
import type { UpgradeOfferOut } from "@/lib/upgrades/schemas";
import { listSellerProducts } from "@/lib/selling/products";
import { formatPrice } from "@/lib/pricing";
import { UpgradeOfferForm } from "@/components/upgrades/upgrade-offer-form";
import { param } from "@/components/dashboard/format";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { Badge } from "@/components/ui/badge";
import { buttonSecondary, card } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { createUpgradeOfferAction, setUpgradeOfferActiveAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Upgrades", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// Only known codes are shown, so a crafted link cannot put words on the page.
const DONE: Record<string, string> = {
  created: "Upgrade offered. Buyers of the first product see it in My licenses and on the product page of the second.",
  on: "Upgrade turned on. Buyers can buy it again.",
  off: "Upgrade turned off. Buyers no longer see it; checkouts already open keep their price.",
};

function price(o: UpgradeOfferOut): string {
  return o.pricing === "fixed" ? `${formatPrice(o.price_cents ?? 0, o.to_product.currency)} a seat` : "The difference, per seat";
}

export default async function UpgradesPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const [offers, products] = await Promise.all([listUpgradeOffers(developer.id), listSellerProducts(developer.id)]);
  const done = DONE[param(query.done)];

  return (
    <>
      <Notice searchParams={query} />
      {done ? (
        <div
          role="status"
          id="upgrades-notice"
          className="mb-6 rounded-lg border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900"
        >
          {done}
        </div>
      ) : null}
      <PageHeader
        title="Upgrades"
        description="Offer buyers of one product (or edition) another one at a set price or for the difference, and choose whether their old license is retired. Buyers prove what they own with their key or by signing in to My licenses."
        actions={
          <a href="#new-upgrade" className={buttonSecondary}>
            New upgrade
          </a>
        }
      />

      <Section
        id="upgrades"
        title="Your upgrades"
        description={`${offers.length} ${offers.length === 1 ? "offer" : "offers"}, newest first.`}
        className="mt-8"
      >
        {offers.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">No upgrades yet.</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">Offer one below, e.g. from your Standard edition to Pro.</p>
          </div>
        ) : (
          <ScrollTable label="Upgrades" minWidth="sm:min-w-[56rem]">
            <caption className="sr-only">Upgrade offers with their products, price, what happens to the old license, sales and status</caption>
            <thead>
              <tr>
                <th scope="col" className={th}>
                  From
                </th>
                <th scope="col" className={th}>
                  To
                </th>
                <th scope="col" className={th}>
                  Price
                </th>
                <th scope="col" className={th}>
                  Old license
                </th>
                <th scope="col" className={thNum}>
                  Sold
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
              {offers.map((o) => (
                <tr key={o.id}>
                  <td data-label="From" className={td}>
                    {o.from_product.name}
                  </td>
                  <td data-label="To" className={td}>
                    {o.to_product.name}
                  </td>
                  <td data-label="Price" className={td}>
                    {price(o)}
                  </td>
                  <td data-label="Old license" className={td}>
                    {o.retire_source ? "Retired" : "Kept"}
                  </td>
                  <td data-label="Sold" className={tdNum}>
                    {o.paid_upgrades}
                  </td>
                  <td data-label="Status" className={td}>
                    <Badge tone={o.active ? "success" : "neutral"}>{o.active ? "On" : "Off"}</Badge>
                  </td>
                  <td className={td}>
                    <form action={setUpgradeOfferActiveAction.bind(null, o.id, !o.active)}>
                      <button type="submit" className={`${buttonSecondary} px-3 py-1.5`}>
                        {o.active ? "Turn off" : "Turn on"}
                        <span className="sr-only">
                          {" "}
                          the upgrade from {o.from_product.name} to {o.to_product.name}
                        </span>
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </ScrollTable>
        )}
      </Section>

      <Section id="new-upgrade" title="New upgrade" className="mt-12">
        <div className={`${card} p-6`}>
          <UpgradeOfferForm
            action={createUpgradeOfferAction}
            products={products.filter((p) => p.status !== "removed").map((p) => ({ id: p.id, name: p.name, currency: p.currency }))}
            idempotencyKey={crypto.randomUUID()}
          />
        </div>
      </Section>
    </>
  );
}
