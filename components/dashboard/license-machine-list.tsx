import type { LicenseView } from "@/lib/seller-api/licenses";
import { LastSeen, machineSummary } from "./license-machines";

/** A license's machines in a list cell: name, platform and version, the shortened fingerprint, last seen. */
export function MachineList({ machines, className = "" }: { machines: LicenseView["machines"]; className?: string }) {
  if (machines.length === 0) return <span className={`text-sm text-slate-600 ${className}`}>No machines</span>;
  return (
    <ul className={`space-y-1 text-xs text-slate-700 ${className}`}>
      {machines.map((m) => (
        <li key={m.id} data-testid="machine-summary">
          <span className="font-medium text-slate-900">{machineSummary(m) || "Unnamed machine"}</span>{" "}
          <code title={m.fingerprint} className="font-mono text-slate-600">
            {m.short_fingerprint}
          </code>
          <span className="block text-slate-600">
            last seen <LastSeen at={m.last_seen_at} />
          </span>
        </li>
      ))}
    </ul>
  );
}
