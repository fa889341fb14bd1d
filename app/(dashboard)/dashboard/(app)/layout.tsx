import Link from "next/link";
import type { ReactNode } from "react";
import { paths } from "@/lib/urls";
import { DashboardNav } from "@/components/dashboard/dashboard-nav";
import { buttonSecondary, container, focusRing } from "@/components/ui/styles";
import { devMailboxEnabled } from "@/lib/email/dev-mailbox";
import { isAdminEmail } from "@/lib/auth/operators";
import { pageSeller } from "../../_lib/seller";

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const { email, developer } = await pageSeller();
  return (
    <>
      <div className="border-b border-slate-200 bg-white">
        <div className={`${container} pt-6`}>
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <div className="flex min-w-0 items-center gap-3">
              <span
                aria-hidden="true"
                className="flex size-11 shrink-0 items-center justify-center rounded-full bg-indigo-100 text-base font-semibold text-indigo-800"
              >
                {developer.name.trim().charAt(0).toUpperCase()}
              </span>
              <div className="min-w-0">
                <p className="text-xs font-semibold tracking-wide text-indigo-700 uppercase">Seller dashboard</p>
                <p className="truncate text-base font-semibold text-slate-900">{developer.name}</p>
                <p className="truncate text-sm text-slate-600">{email}</p>
              </div>
            </div>
            <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
              <Link
                href={paths.developer(developer.id)}
                prefetch={false}
                className={`rounded-sm text-sm font-medium text-slate-700 hover:text-slate-900 hover:underline ${focusRing}`}
              >
                Your store page
              </Link>
              {isAdminEmail(email) ? (
                <Link
                  href="/admin"
                  prefetch={false}
                  className={`rounded-sm text-sm font-medium text-indigo-700 hover:text-indigo-900 hover:underline ${focusRing}`}
                >
                  Operator console
                </Link>
              ) : null}
              <form method="post" action="/auth/sign-out">
                <input type="hidden" name="kind" value="seller" />
                <button type="submit" className={`${buttonSecondary} py-2`}>
                  Sign out
                </button>
              </form>
            </div>
          </div>
          <div className="mt-4">
            <DashboardNav />
          </div>
        </div>
      </div>
      {devMailboxEnabled() ? (
        <div className="border-b border-amber-200 bg-amber-50">
          <p className={`${container} py-2.5 text-sm leading-6 text-amber-900`} role="note">
            <strong className="font-semibold">E-mail is local only on this deployment.</strong> Sign-in links and your buyers&rsquo; license keys go
            to the development mailbox on the server&rsquo;s own machine (<code>/dev/mailbox</code>, the last hour), not to anyone&rsquo;s inbox. The
            operator sets <code>RESEND_API_KEY</code> to send real e-mail.
          </p>
        </div>
      ) : null}
      <div className={`${container} py-8 sm:py-10`}>{children}</div>
    </>
  );
}
