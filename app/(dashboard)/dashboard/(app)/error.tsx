"use client";

import Link from "next/link";
import { buttonPrimary, buttonSecondary } from "@/components/ui/styles";

/** Something unexpected failed (the database, say). Nothing internal is shown; the digest matches the server log. */
export default function DashboardError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = typeof error === "object" && error !== null && "digest" in error && typeof error.digest === "string" ? error.digest : "";
  return (
    <div role="alert" className="flex flex-col items-center py-16 text-center">
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900">Something went wrong</h1>
      <p className="mt-3 max-w-md text-base text-slate-600">
        That did not work, and it is not something you did. Try again; if it keeps happening, the reference below helps us find it.
      </p>
      {digest ? <p className="mt-2 font-mono text-xs text-slate-600">Reference: {digest}</p> : null}
      <div className="mt-8 flex gap-3">
        <button type="button" onClick={() => retry()} className={buttonPrimary}>
          Try again
        </button>
        <Link href="/dashboard" className={buttonSecondary}>
          Dashboard home
        </Link>
      </div>
    </div>
  );
}
