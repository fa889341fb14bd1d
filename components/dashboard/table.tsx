import type { ReactNode } from "react";

/**
 * A table that scrolls sideways inside its own box on narrow screens (the page never does). The box is focusable
 * and named, so keyboard users can scroll it too.
 */
export function ScrollTable({ label, children, minWidth = "min-w-[40rem]" }: { label: string; children: ReactNode; minWidth?: string }) {
  return (
    <div
      role="region"
      aria-label={`${label} table`}
      tabIndex={0}
      className="relative overflow-x-auto rounded-2xl border border-slate-200 bg-white shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
    >
      <table className={`w-full ${minWidth} border-collapse text-left text-sm`}>{children}</table>
    </div>
  );
}

export const th = "border-b border-slate-200 bg-slate-50 px-4 py-3 text-xs font-semibold tracking-wide text-slate-600 uppercase";
export const td = "border-b border-slate-100 px-4 py-3 align-middle text-slate-800";
export const tdNum = `${td} text-right tabular-nums whitespace-nowrap`;
export const thNum = `${th} text-right`;

/** Shown in a cell with no value: a dash for the eye, a word for screen readers. */
export function None({ label = "none" }: { label?: string }) {
  return (
    <>
      <span aria-hidden="true" className="text-slate-500">
        —
      </span>
      <span className="sr-only">{label}</span>
    </>
  );
}
