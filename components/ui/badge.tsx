import type { ReactNode } from "react";

const tones = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  accent: "bg-indigo-50 text-indigo-800 ring-indigo-200",
  success: "bg-emerald-50 text-emerald-800 ring-emerald-200",
} as const;

/** A badge's classes, for an element that is itself the badge (a list item, say) rather than holding one. */
export function badgeClass(tone: keyof typeof tones = "neutral"): string {
  return `inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${tones[tone]}`;
}

export function Badge({ children, tone = "neutral" }: { children: ReactNode; tone?: keyof typeof tones }) {
  return <span className={badgeClass(tone)}>{children}</span>;
}
