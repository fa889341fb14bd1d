import type { ReactNode } from "react";

/** The tones' classes are in app/globals.css (`badge`, `badge-accent`, `badge-success`): one short class per badge. */
const tones = {
  neutral: "badge",
  accent: "badge badge-accent",
  success: "badge badge-success",
} as const;

/** A badge's classes, for an element that is itself the badge (a list item, say) rather than holding one. */
export function badgeClass(tone: keyof typeof tones = "neutral"): string {
  return tones[tone];
}

export function Badge({ children, tone = "neutral" }: { children: ReactNode; tone?: keyof typeof tones }) {
  return <span className={badgeClass(tone)}>{children}</span>;
}
