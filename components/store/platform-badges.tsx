import { Badge } from "@/components/ui/badge";
import { platformLabel } from "./labels";

export function PlatformBadges({ platforms }: { platforms: readonly string[] }) {
  if (platforms.length === 0) return null;
  return (
    <ul aria-label="Platforms" className="flex flex-wrap gap-1.5">
      {platforms.map((p) => (
        <li key={p}>
          <Badge>{platformLabel(p)}</Badge>
        </li>
      ))}
    </ul>
  );
}
