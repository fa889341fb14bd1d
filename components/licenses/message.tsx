import type { ReactNode } from "react";
import { CheckCircleIcon, InfoIcon, XCircleIcon } from "@/components/checkout/icons";

const tones = {
  success: { box: "border-emerald-200 bg-emerald-50 text-emerald-900", icon: "text-emerald-700", Icon: CheckCircleIcon },
  error: { box: "border-red-200 bg-red-50 text-red-900", icon: "text-red-700", Icon: XCircleIcon },
  info: { box: "border-slate-200 bg-slate-50 text-slate-800", icon: "text-slate-600", Icon: InfoIcon },
} as const;

/**
 * A message box. Errors are alerts, the rest statuses; each has an id, because Next's route announcer also has
 * role="alert" and tests (and aria-describedby) need to address this one.
 */
export function Message({ id, tone, title, children }: { id: string; tone: keyof typeof tones; title?: ReactNode; children: ReactNode }) {
  const t = tones[tone];
  return (
    <div id={id} role={tone === "error" ? "alert" : "status"} className={`flex gap-3 rounded-xl border px-4 py-3.5 text-sm leading-6 ${t.box}`}>
      <t.Icon className={`mt-0.5 size-5 shrink-0 ${t.icon}`} />
      <div className="min-w-0 break-words">
        {title ? <p className="font-semibold">{title}</p> : null}
        <div>{children}</div>
      </div>
    </div>
  );
}
