import { badgeClass } from "@/components/ui/badge";
import { platformLabel } from "./labels";

export function PlatformBadges({ platforms }: { platforms: readonly string[] }) {
  if (platforms.length === 0) return null;
  return (
    <ul aria-label="Platforms" className="flex flex-wrap gap-1.5">
      {platforms.map((p) => (
        // Each item is the badge itself (no span inside): a listing shows many.
        <li key={p} className={badgeClass()}>
          {platformLabel(p)}
        </li>
      ))}
    </ul>
  );
}
