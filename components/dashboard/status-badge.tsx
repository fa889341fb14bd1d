import type { ReactNode } from "react";
import type { LicenseStatus } from "./format";

const tones = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  red: "bg-red-50 text-red-800 ring-red-600/30",
  amber: "bg-amber-50 text-amber-900 ring-amber-600/30",
  slate: "bg-slate-100 text-slate-700 ring-slate-500/30",
  indigo: "bg-indigo-50 text-indigo-800 ring-indigo-600/30",
} as const;

const dots = { green: "fill-emerald-600", red: "fill-red-600", amber: "fill-amber-500", slate: "fill-slate-500", indigo: "fill-indigo-600" } as const;

function StatusBadge({ tone, children }: { tone: keyof typeof tones; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${tones[tone]}`}
    >
      <svg viewBox="0 0 6 6" aria-hidden="true" className={`size-1.5 ${dots[tone]}`}>
        <circle cx="3" cy="3" r="3" />
      </svg>
      {children}
    </span>
  );
}

const LICENSE_TONES: Record<LicenseStatus, keyof typeof tones> = { active: "green", revoked: "red", expired: "slate", trial: "amber" };
const LICENSE_LABELS: Record<LicenseStatus, string> = { active: "Active", revoked: "Revoked", expired: "Expired", trial: "Trial" };

export function LicenseStatusBadge({ status }: { status: LicenseStatus }) {
  return <StatusBadge tone={LICENSE_TONES[status]}>{LICENSE_LABELS[status]}</StatusBadge>;
}

export function ProductStatusBadge({ status }: { status: string }) {
  if (status === "draft") return <StatusBadge tone="amber">Draft</StatusBadge>;
  return status === "active" ? <StatusBadge tone="green">Listed</StatusBadge> : <StatusBadge tone="slate">Unlisted</StatusBadge>;
}

const RELEASE_TONES: Record<string, keyof typeof tones> = { draft: "amber", published: "green", yanked: "red" };
const RELEASE_LABELS: Record<string, string> = { draft: "Draft", published: "Published", yanked: "Yanked" };

export function ReleaseStatusBadge({ status }: { status: string }) {
  return <StatusBadge tone={RELEASE_TONES[status] ?? "slate"}>{RELEASE_LABELS[status] ?? status}</StatusBadge>;
}
