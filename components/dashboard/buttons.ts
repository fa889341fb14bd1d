import { focusRing } from "@/components/ui/styles";

export const buttonDanger = `inline-flex items-center justify-center gap-2 rounded-lg bg-red-700 px-4 py-2.5 text-sm font-semibold text-white shadow-sm transition-colors hover:bg-red-800 active:bg-red-900 disabled:cursor-not-allowed disabled:opacity-60 ${focusRing}`;

export const buttonSmall = `inline-flex items-center justify-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm font-medium text-slate-800 shadow-sm transition-colors hover:bg-slate-50 ${focusRing}`;
