import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { requireAdmin } from "@/lib/admin/session";
import { buttonSecondary, container, focusRing } from "@/components/ui/styles";
import { AdminNav } from "./_nav";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { robots: { index: false } };

/** Only the operator sees any of this; everyone else gets the site's ordinary 404 page (lib/admin/session.ts). */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const admin = await requireAdmin();
  return (
    <>
      <div className="border-b border-slate-200 bg-white">
        <div className={`${container} pt-6`}>
          <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
            <div className="min-w-0">
              <p className="text-xs font-semibold tracking-wide text-indigo-700 uppercase">Operator console</p>
              <p className="truncate text-base font-semibold text-slate-900">Indie License Market</p>
              <p className="truncate text-sm text-slate-600">{admin.email}</p>
            </div>
            <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
              <Link
                href="/"
                prefetch={false}
                className={`rounded-sm text-sm font-medium text-slate-700 hover:text-slate-900 hover:underline ${focusRing}`}
              >
                The store
              </Link>
              <form method="post" action="/auth/sign-out">
                <input type="hidden" name="kind" value={admin.via ?? "seller"} />
                <button type="submit" className={`${buttonSecondary} py-2`}>
                  Sign out
                </button>
              </form>
            </div>
          </div>
          <div className="mt-4">
            <AdminNav />
          </div>
        </div>
      </div>
      <div className={`${container} py-8 sm:py-10`}>{children}</div>
    </>
  );
}
