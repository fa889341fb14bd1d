import type { LicenseStatus } from "./format";

const tones = {
  active: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  trial: "bg-indigo-50 text-indigo-800 ring-indigo-200",
  expired: "bg-amber-50 text-amber-900 ring-amber-300",
  revoked: "bg-red-50 text-red-800 ring-red-200",
} as const;

function statusLabel(status: LicenseStatus): string {
  switch (status.kind) {
    case "active":
      return "Active";
    case "trial":
      return `Trial · ${status.daysLeft} ${status.daysLeft === 1 ? "day" : "days"} left`;
    case "expired":
      return "Expired";
    case "revoked":
      return "Revoked";
  }
}

/** Active / Trial · N days left / Expired / Revoked, as a coloured pill. */
export function StatusBadge({ status }: { status: LicenseStatus }) {
  return (
    <span
      data-testid="license-status"
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-semibold whitespace-nowrap ring-1 ring-inset ${tones[status.kind]}`}
    >
      <span aria-hidden="true" className="size-1.5 rounded-full bg-current" />
      <span className="sr-only">Status: </span>
      {statusLabel(status)}
    </span>
  );
}
