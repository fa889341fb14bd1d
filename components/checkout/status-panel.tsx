import type { ReactNode } from "react";
import { card } from "@/components/ui/styles";
import { CheckCircleIcon, ClockIcon, InfoIcon, XCircleIcon } from "./icons";

const tones = {
  success: { ring: "bg-emerald-50 text-emerald-700 ring-emerald-200", Icon: CheckCircleIcon },
  pending: { ring: "bg-indigo-50 text-indigo-700 ring-indigo-200", Icon: ClockIcon },
  stopped: { ring: "bg-slate-100 text-slate-700 ring-slate-200", Icon: XCircleIcon },
  info: { ring: "bg-slate-100 text-slate-700 ring-slate-200", Icon: InfoIcon },
} as const;

export type StatusTone = keyof typeof tones;

/** A page's main message: an icon, the h1, an explanation, then actions and whatever else the page adds. */
export function StatusPanel({
  tone,
  title,
  children,
  actions,
  footer,
  testId,
}: {
  tone: StatusTone;
  title: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  footer?: ReactNode;
  testId?: string;
}) {
  const { ring, Icon } = tones[tone];
  return (
    <section aria-labelledby="status-title" className={`${card} overflow-hidden`}>
      <div className="p-6 sm:p-8">
        <span className={`inline-flex size-12 items-center justify-center rounded-full ring-1 ring-inset ${ring}`}>
          <Icon className="size-6" />
        </span>
        <h1 id="status-title" data-testid={testId} className="mt-4 text-2xl font-semibold tracking-tight text-balance text-slate-900 sm:text-3xl">
          {title}
        </h1>
        {children ? <div className="mt-3 space-y-3 text-base leading-7 text-pretty text-slate-700">{children}</div> : null}
        {actions ? <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-center">{actions}</div> : null}
      </div>
      {footer ? <div className="border-t border-slate-200 bg-slate-50 px-6 py-5 sm:px-8">{footer}</div> : null}
    </section>
  );
}
