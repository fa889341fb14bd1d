import type { ReactNode } from "react";

/**
 * A table that becomes a stack of cards on phones: under the sm breakpoint each row is a card and each cell a line
 * with its column's name (the cell's `data-label`) on the left, so no column hides off-screen. From sm up it is a
 * table that scrolls sideways inside its own box when narrow (the page never does); the box is focusable and named,
 * so keyboard users can scroll it too. `minWidth` applies from sm up (`sm:min-w-[…]`).
 */
export function ScrollTable({ label, children, minWidth = "sm:min-w-[40rem]" }: { label: string; children: ReactNode; minWidth?: string }) {
  return (
    <div
      role="region"
      aria-label={`${label} table`}
      tabIndex={0}
      className="relative overflow-x-auto rounded-2xl border border-slate-200 bg-white shadow-sm focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
    >
      <table className={`w-full ${minWidth} border-collapse text-left text-sm ${stacked}`}>{children}</table>
    </div>
  );
}

// Phones: the header row is read by screen readers only; rows are blocks divided by a rule; cells are lines.
const stacked =
  "max-sm:block max-sm:[&_tbody]:block max-sm:[&_thead]:sr-only max-sm:[&_tbody>tr]:block max-sm:[&_tbody>tr]:border-b " +
  "max-sm:[&_tbody>tr]:border-slate-200 max-sm:[&_tbody>tr]:py-2 max-sm:[&_tbody>tr:last-child]:border-b-0 max-sm:[&_tfoot]:block max-sm:[&_tfoot>tr]:block";

export const th = "border-b border-slate-200 bg-slate-50 px-4 py-3 text-xs font-semibold tracking-wide text-slate-600 uppercase";
/**
 * A cell; give it `data-label` (its column's name) for the phone layout, where values (and rows of badges) sit on
 * the right. The label is drawn, not read (`/ ""`): screen readers already announce the column header.
 */
export const td =
  "border-b border-slate-100 px-4 py-3 align-middle text-slate-800 " +
  "max-sm:flow-root max-sm:border-0 max-sm:py-1.5 max-sm:text-right max-sm:[&>*]:justify-end max-sm:before:float-left max-sm:before:mr-4 " +
  "max-sm:before:text-left max-sm:before:font-medium max-sm:before:text-slate-600 max-sm:before:content-[attr(data-label)_/_'']";
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
