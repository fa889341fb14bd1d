import type { Metadata } from "next";
import Link from "next/link";
import { paths } from "@/lib/urls";
import { Notice } from "@/components/dashboard/notice";
import { PageHeader } from "@/components/dashboard/page-header";
import { ProfileForm } from "@/components/dashboard/profile-form";
import { SaleEmailsForm } from "@/components/dashboard/sale-emails-form";
import { getSaleEmails } from "@/lib/seller-mail/sale-emails";
import { card, textLink } from "@/components/ui/styles";
import { pageSeller } from "../../../_lib/seller";
import { saleEmailsAction, updateProfileAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Profile", robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ProfilePage({ searchParams }: Props) {
  const { email, developer } = await pageSeller();
  const saleEmails = await getSaleEmails(developer.id);
  return (
    <>
      <Notice searchParams={await searchParams} />
      <PageHeader title="Profile" description="How buyers and agents see you: on your products, your store page and in the catalog." />
      <div className="mt-8 grid gap-8 lg:grid-cols-[minmax(0,1fr)_20rem]">
        <div className={`${card} p-5 sm:p-6`}>
          <h2 className="sr-only">Edit your profile</h2>
          <ProfileForm action={updateProfileAction} initial={developer} submitLabel="Save profile" />
        </div>
        <div className="space-y-8 self-start">
          <aside aria-labelledby="account-heading" className={`${card} p-5`}>
            <h2 id="account-heading" className="text-base font-semibold text-slate-900">
              Account
            </h2>
            <dl className="mt-3 space-y-3 text-sm">
              <div>
                <dt className="text-slate-600">Sign-in e-mail</dt>
                <dd className="font-medium wrap-anywhere text-slate-900">{email}</dd>
              </div>
              <div>
                <dt className="text-slate-600">Developer ID</dt>
                <dd>
                  <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.8125rem] text-slate-800">{developer.id}</code>
                </dd>
              </div>
            </dl>
            <p className="mt-4 text-sm">
              <Link href={paths.developer(developer.id)} prefetch={false} className={textLink}>
                Your public store page
              </Link>
            </p>
          </aside>
          <section id="sale-emails" aria-labelledby="sale-emails-heading" className={`${card} scroll-mt-24 p-5`}>
            <h2 id="sale-emails-heading" className="text-base font-semibold text-slate-900">
              Sale e-mails
            </h2>
            <p className="mt-1 text-sm text-slate-600">Sent to {email}.</p>
            <SaleEmailsForm action={saleEmailsAction} initial={saleEmails} />
          </section>
        </div>
      </div>
    </>
  );
}
