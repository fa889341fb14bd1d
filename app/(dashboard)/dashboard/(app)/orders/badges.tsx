import type { ReactNode } from "react";

const tones = {
  green: "bg-emerald-50 text-emerald-800 ring-emerald-600/30",
  red: "bg-red-50 text-red-800 ring-red-600/30",
  amber: "bg-amber-50 text-amber-900 ring-amber-600/30",
  slate: "bg-slate-100 text-slate-700 ring-slate-500/30",
} as const;

function Pill({ tone, children }: { tone: keyof typeof tones; children: ReactNode }) {
  return (
    <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${tones[tone]}`}>
      {children}
    </span>
  );
}

const ORDER: Record<string, [keyof typeof tones, string]> = {
  paid: ["green", "Paid"],
  open: ["amber", "Awaiting payment"],
  expired: ["slate", "Expired"],
  cancelled: ["slate", "Cancelled"],
  failed: ["red", "Payment failed"],
};

/** Where the order stands, refunds included: "Refunded" once everything paid went back. */
export function OrderStatusBadge({ status, refunded, total }: { status: string; refunded: number; total: number }) {
  if (status === "paid" && total > 0 && refunded >= total) return <Pill tone="slate">Refunded</Pill>;
  if (status === "paid" && refunded > 0) return <Pill tone="amber">Partly refunded</Pill>;
  const [tone, label] = ORDER[status] ?? (["slate", status] as const);
  return <Pill tone={tone}>{label}</Pill>;
}

const DISPUTE: Record<string, [keyof typeof tones, string]> = {
  open: ["red", "Dispute open"],
  won: ["green", "Dispute won"],
  lost: ["red", "Dispute lost"],
};

export function DisputeBadge({ status }: { status: string | null }) {
  if (!status) return null;
  const [tone, label] = DISPUTE[status] ?? (["slate", `Dispute ${status}`] as const);
  return <Pill tone={tone}>{label}</Pill>;
}

const REFUND: Record<string, [keyof typeof tones, string]> = {
  succeeded: ["green", "Refunded"],
  pending: ["amber", "Pending"],
  failed: ["red", "Failed"],
};

export function RefundStatusBadge({ status }: { status: string }) {
  const [tone, label] = REFUND[status] ?? (["slate", status] as const);
  return <Pill tone={tone}>{label}</Pill>;
}
