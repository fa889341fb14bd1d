import type { ReactNode } from "react";
import { param } from "@/components/dashboard/format";
import { ScrollTable, th, thNum } from "@/components/dashboard/table";
import { buttonPrimary, buttonSecondary, inputBase } from "@/components/ui/styles";
import { adminError, adminNotice } from "./messages";

export type SearchParams = Record<string, string | string[] | undefined>;

export function AdminNotice({ searchParams }: { searchParams: SearchParams }) {
  return <AdminMessages notice={adminNotice(param(searchParams.notice))} error={adminError(param(searchParams.error))} />;
}

/** The console's notice and error banners (after a form's redirect), as every console page shows them. */
export function AdminMessages({ notice, error }: { notice?: string | undefined; error?: string | undefined }) {
  if (!notice && !error) return null;
  return (
    <div className="mb-6 space-y-3">
      {notice ? (
        <p
          role="status"
          id="admin-notice"
          className="rounded-xl border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm font-medium text-emerald-900"
        >
          {notice}
        </p>
      ) : null}
      {error ? (
        <p role="alert" id="admin-error" className="rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm font-medium text-red-900">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A GET search form: the query box and any filters, as links that can be shared and reloaded. */
export function SearchForm({ label, q, placeholder, children }: { label: string; q: string; placeholder: string; children?: ReactNode }) {
  return (
    <form method="get" role="search" aria-label={label} className="flex flex-col gap-3 sm:flex-row sm:items-end">
      <div className="min-w-0 flex-1">
        <label htmlFor="admin-q" className="block text-sm font-medium text-slate-900">
          Search
        </label>
        <input id="admin-q" name="q" type="search" defaultValue={q} maxLength={200} placeholder={placeholder} className={`${inputBase} mt-1.5`} />
      </div>
      {children}
      <button type="submit" className={buttonPrimary}>
        Search
      </button>
    </form>
  );
}

export function FilterSelect({
  name,
  label,
  value,
  options,
}: {
  name: string;
  label: string;
  value: string;
  options: readonly (readonly [string, string])[];
}) {
  return (
    <div>
      <label htmlFor={`admin-${name}`} className="block text-sm font-medium text-slate-900">
        {label}
      </label>
      <select id={`admin-${name}`} name={name} defaultValue={value} className={`${inputBase} mt-1.5`}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

/** An action that needs a reason, folded away until opened so a table stays readable. */
export function ReasonForm({
  action,
  id,
  summary,
  label,
  submit,
  required = true,
  danger = false,
  children,
}: {
  action: (fd: FormData) => Promise<void>;
  id: string;
  summary: string;
  label: string;
  submit: string;
  required?: boolean;
  danger?: boolean;
  children?: ReactNode;
}) {
  const field = `${summary.toLowerCase().replace(/[^a-z]+/g, "-")}-${id}`;
  return (
    <details className="group">
      <summary className={`${buttonSecondary} cursor-pointer px-2.5 py-1.5 [&::-webkit-details-marker]:hidden`}>{summary}</summary>
      <form action={action} className="mt-2 w-72 space-y-2">
        <input type="hidden" name="id" value={id} />
        {children}
        <div>
          <label htmlFor={field} className="block text-xs font-medium text-slate-700">
            {label}
          </label>
          <input
            id={field}
            name="reason"
            required={required}
            minLength={required ? 3 : undefined}
            maxLength={500}
            className={`${inputBase} mt-1 py-1.5`}
          />
        </div>
        <button
          type="submit"
          className={`${danger ? "bg-red-600 text-white hover:bg-red-700" : "bg-indigo-600 text-white hover:bg-indigo-700"} inline-flex rounded-lg px-3 py-1.5 text-sm font-semibold`}
        >
          {submit}
        </button>
      </form>
    </details>
  );
}

/** One step the operator takes (suspend, remove, hide) and the one that undoes it. */
interface Measure {
  action: (fd: FormData) => Promise<void>;
  summary: string;
  submit: string;
}

/**
 * The action cell of a console row: the measure, which needs a reason the seller sees, or, once it is in force, its
 * undo, with an optional note for the audit log.
 */
export function MeasureForms({ id, inForce, take, undo }: { id: string; inForce: boolean; take: Measure; undo: Measure }) {
  return inForce ? (
    <ReasonForm action={undo.action} id={id} summary={undo.summary} label="Note for the audit log (optional)" submit={undo.submit} required={false} />
  ) : (
    <ReasonForm action={take.action} id={id} summary={take.summary} label="Reason (the seller sees it)" submit={take.submit} danger />
  );
}

/** A column of a console table: its name, whether it holds numbers (right-aligned), whether its name is for screen readers only. */
export type Column = string | { name: string; numeric?: boolean; hidden?: boolean };

/**
 * A console list: "No … matches." when there are no rows, otherwise the scrolling table (a stack of cards on phones)
 * with its caption, its column heads and the rows given as children.
 */
export function AdminTable({
  label,
  caption,
  columns,
  minWidth,
  rows,
  empty,
  children,
}: {
  label: string;
  caption: string;
  columns: Column[];
  minWidth: string;
  rows: number;
  empty: string;
  children: ReactNode;
}) {
  if (rows === 0) return <p className="text-sm text-slate-600">{empty}</p>;
  return (
    <ScrollTable label={label} minWidth={minWidth}>
      <caption className="sr-only">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => {
            const col = typeof c === "string" ? { name: c } : c;
            return (
              <th key={col.name} scope="col" className={col.numeric ? thNum : th}>
                {col.hidden ? <span className="sr-only">{col.name}</span> : col.name}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </ScrollTable>
  );
}

const tones = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  red: "bg-red-50 text-red-800 ring-red-600/30",
  amber: "bg-amber-50 text-amber-900 ring-amber-600/30",
  slate: "bg-slate-100 text-slate-700 ring-slate-500/30",
} as const;

export function Badge({ tone, children }: { tone: keyof typeof tones; children: ReactNode }) {
  return (
    <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${tones[tone]}`}>
      {children}
    </span>
  );
}

const PRODUCT_TONES: Record<string, keyof typeof tones> = { active: "green", unlisted: "slate", suspended: "amber", removed: "red" };
const PRODUCT_LABELS: Record<string, string> = { active: "Listed", unlisted: "Unlisted", suspended: "Seller suspended", removed: "Removed" };
export function ProductBadge({ status }: { status: string }) {
  return <Badge tone={PRODUCT_TONES[status] ?? "slate"}>{PRODUCT_LABELS[status] ?? status}</Badge>;
}
