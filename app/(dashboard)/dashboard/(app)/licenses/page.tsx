import type { Metadata } from "next";
import Link from "next/link";
import { AppError } from "@/lib/http/errors";
import { searchLicenses } from "@/lib/seller-api/licenses";
import { listSellerProducts } from "@/lib/selling/products";
import { ComplimentaryForm } from "@/components/dashboard/complimentary-form";
import { formatDay, param } from "@/components/dashboard/format";
import { MachineList } from "@/components/dashboard/license-machine-list";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader, Section } from "@/components/dashboard/page-header";
import { LicenseStatusBadge } from "@/components/dashboard/status-badge";
import { ScrollTable, td, tdNum, th, thNum } from "@/components/dashboard/table";
import { CopyButton } from "@/components/ui/copy-button";
import { buttonPrimary, buttonSecondary, card, focusRing, inputBase } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { issueComplimentaryAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Licenses", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

const LIMIT = 50;

export default async function LicensesPage({ searchParams }: Props) {
  const { developer } = await pageSeller();
  const query = await searchParams;
  const q = param(query.q)
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 254);
  const cursor = param(query.cursor).slice(0, 200);
  const [found, products] = await Promise.all([
    searchLicenses(developer.id, { q, limit: LIMIT, cursor: cursor || undefined }).catch((e: unknown) => {
      if (e instanceof AppError && e.code === "invalid_cursor") return null;
      throw e;
    }),
    listSellerProducts(developer.id),
  ]);
  // A cursor that is not ours (edited by hand): the first page instead of an error page.
  const page = found ?? (await searchLicenses(developer.id, { q, limit: LIMIT }));
  const licenses = page.licenses;
  const nextHref = page.next_cursor
    ? `/dashboard/licenses?${new URLSearchParams({ ...(q ? { q } : {}), cursor: page.next_cursor }).toString()}`
    : null;
  const summary = q
    ? `${nextHref ? `${LIMIT}` : licenses.length} ${licenses.length === 1 ? "license matches" : "licenses match"} “${q}”${nextHref ? " on this page" : ""}.`
    : nextHref
      ? `${LIMIT} licenses on this page, newest first.`
      : `${licenses.length} ${licenses.length === 1 ? "license" : "licenses"}${cursor ? " more" : ""}, newest first.`;

  return (
    <>
      <Notice searchParams={query} />
      <PageHeader
        title="Licenses"
        description="Every key issued for your products: purchases, trials and complimentary ones. Release a machine for a buyer, revoke a refunded key, or give one away."
        actions={
          <a href="#complimentary" className={buttonSecondary}>
            Issue complimentary license
          </a>
        }
      />

      <form method="get" action="/dashboard/licenses" role="search" className="mt-8 flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex-1">
          <label htmlFor="license-search" className="block text-sm font-medium text-slate-900">
            Search by part of a key, buyer e-mail or product name
          </label>
          <input
            id="license-search"
            type="search"
            name="q"
            defaultValue={q}
            maxLength={254}
            autoComplete="off"
            spellCheck={false}
            placeholder="ABCD1234, ana@, product name"
            className={`${inputBase} mt-1.5`}
          />
        </div>
        <div className="flex gap-2">
          <button type="submit" className={buttonPrimary}>
            Search
          </button>
          {q ? (
            <Link href="/dashboard/licenses" className={buttonSecondary}>
              Clear
            </Link>
          ) : null}
        </div>
      </form>

      <Section id="results-heading" title={q ? "Search results" : "All licenses"} description={summary} className="mt-8">
        {licenses.length === 0 ? (
          <div className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center">
            <p className="text-base font-medium text-slate-900">{q ? "No license matches." : "No licenses yet."}</p>
            <p className="mx-auto mt-2 max-w-md text-sm text-slate-600">
              {q
                ? "Search with four or more characters of the key (dashes optional), part of the buyer's e-mail address, or part of a product name."
                : "Keys appear here as soon as an order is paid, a trial starts or you issue one."}
            </p>
          </div>
        ) : (
          <>
            <ul aria-label="Licenses" className="space-y-3 sm:hidden">
              {licenses.map((l) => (
                <li key={l.id} className={`${card} p-4`}>
                  <div className="flex items-center justify-between gap-3">
                    <code id={`key-m-${l.id}`} className="font-mono text-sm font-semibold break-all text-slate-900">
                      {l.key}
                    </code>
                    <LicenseStatusBadge status={l.status} />
                  </div>
                  <p className="mt-2 text-sm font-medium text-slate-900">{l.product.name}</p>
                  <p className="text-sm break-all text-slate-600">{l.buyer_email}</p>
                  <p className="mt-1 text-sm text-slate-600">
                    {l.active_machines} of {l.max_machines} machines · issued <time dateTime={l.issued_at}>{formatDay(l.issued_at)}</time>
                  </p>
                  <MachineList machines={l.machines} className="mt-2" />
                  <div className="mt-3 flex flex-wrap gap-2">
                    <Link href={`/dashboard/licenses/${encodeURIComponent(l.id)}`} className={`${buttonSecondary} px-3 py-1.5`}>
                      Manage<span className="sr-only"> license {l.key}</span>
                    </Link>
                    <CopyButton text={l.key} label={`license key ${l.key}`} selectTargetId={`key-m-${l.id}`} className="px-3 py-1.5" />
                  </div>
                </li>
              ))}
            </ul>
            <div className="hidden sm:block">
              <ScrollTable label="Licenses" minWidth="sm:min-w-[72rem]">
                <caption className="sr-only">Licenses with key, product, buyer, status, seats used and machines</caption>
                <thead>
                  <tr>
                    <th scope="col" className={th}>
                      Key
                    </th>
                    <th scope="col" className={th}>
                      Product
                    </th>
                    <th scope="col" className={th}>
                      Buyer
                    </th>
                    <th scope="col" className={th}>
                      Status
                    </th>
                    <th scope="col" className={thNum}>
                      Seats
                    </th>
                    <th scope="col" className={th}>
                      Machines
                    </th>
                    <th scope="col" className={th}>
                      Issued
                    </th>
                    <th scope="col" className={th}>
                      <span className="sr-only">Details</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {licenses.map((l) => {
                    const href = `/dashboard/licenses/${encodeURIComponent(l.id)}`;
                    return (
                      <tr key={l.id} className="hover:bg-slate-50">
                        <td data-label="Key" className={`${td} whitespace-nowrap`}>
                          <div className="flex items-center gap-2">
                            <code id={`key-${l.id}`} className="font-mono text-[0.8125rem] font-semibold text-slate-900">
                              {l.key}
                            </code>
                            <CopyButton
                              text={l.key}
                              label={`license key ${l.key}`}
                              selectTargetId={`key-${l.id}`}
                              className="min-w-0 px-2 py-1 text-xs"
                            />
                          </div>
                        </td>
                        <td data-label="Product" className={td}>
                          {l.product.name}
                        </td>
                        <td data-label="Buyer" className={`${td} break-all`}>
                          {l.buyer_email}
                        </td>
                        <td data-label="Status" className={td}>
                          <LicenseStatusBadge status={l.status} />
                        </td>
                        <td data-label="Seats" className={tdNum}>
                          {l.active_machines}
                          <span className="text-slate-500"> / {l.max_machines}</span>
                          <span className="sr-only"> machines in use</span>
                        </td>
                        <td data-label="Machines" className={td}>
                          <MachineList machines={l.machines} />
                        </td>
                        <td data-label="Issued" className={`${td} whitespace-nowrap text-slate-700`}>
                          <time dateTime={l.issued_at}>{formatDay(l.issued_at)}</time>
                        </td>
                        <td className={`${td} text-right`}>
                          <Link
                            href={href}
                            className={`inline-flex rounded-md px-2.5 py-1.5 text-sm font-medium whitespace-nowrap text-indigo-700 hover:bg-indigo-50 ${focusRing}`}
                          >
                            Manage<span className="sr-only"> license {l.key}</span>
                          </Link>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </ScrollTable>
            </div>
          </>
        )}
        {nextHref || cursor ? (
          <nav aria-label="Pages of licenses" className="mt-4 flex gap-2">
            {cursor ? (
              <Link href={q ? `/dashboard/licenses?q=${encodeURIComponent(q)}` : "/dashboard/licenses"} className={buttonSecondary}>
                First page
              </Link>
            ) : null}
            {nextHref ? (
              <Link href={nextHref} className={buttonSecondary}>
                Older licenses
              </Link>
            ) : null}
          </nav>
        ) : null}
      </Section>

      <Section
        id="complimentary"
        title="Issue a complimentary license"
        description="For reviewers, giveaways and support. The recipient gets the key by e-mail, exactly like a purchase; no order is recorded."
        className={`${card} mt-10 scroll-mt-6 p-5 sm:p-6`}
      >
        {products.length > 0 ? (
          <div className="max-w-xl">
            <ComplimentaryForm action={issueComplimentaryAction} products={products} idempotencyKey={crypto.randomUUID()} />
          </div>
        ) : (
          <p className="text-sm text-slate-600">
            Add a product first.{" "}
            <Link href="/dashboard/products/new" className="font-medium text-indigo-700 underline">
              New product
            </Link>
          </p>
        )}
      </Section>
    </>
  );
}
