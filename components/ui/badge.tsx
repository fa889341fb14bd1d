import type { ReactNode } from "react";

const tones = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  accent: "bg-indigo-50 text-indigo-800 ring-indigo-200",
  success: "bg-emerald-50 text-emerald-800 ring-emerald-200",
} as const;

export function Badge({ children, tone = "neutral" }: { children: ReactNode; tone?: keyof typeof tones }) {
  return <span className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`}>{children}</span>;
}
