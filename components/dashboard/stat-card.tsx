import type { ReactNode } from "react";
import { card } from "@/components/ui/styles";

export function StatGrid({ children, label }: { children: ReactNode; label: string }) {
  return (
    <dl aria-label={label} className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-5 [&>*:last-child]:col-span-2 lg:[&>*:last-child]:col-span-1">
      {children}
    </dl>
  );
}

export function StatCard({ label, value, note, emphasis }: { label: string; value: ReactNode; note?: ReactNode; emphasis?: boolean }) {
  return (
    <div className={`${card} min-w-0 p-4 sm:p-5 ${emphasis ? "ring-1 ring-indigo-200" : ""}`}>
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd
        className={`mt-1 text-xl font-semibold tracking-tight tabular-nums wrap-anywhere sm:text-2xl ${emphasis ? "text-indigo-700" : "text-slate-900"}`}
      >
        {value}
      </dd>
      {note ? <dd className="mt-1 text-xs text-slate-600">{note}</dd> : null}
    </div>
  );
}
