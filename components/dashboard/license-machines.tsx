import type { ReactNode } from "react";
import type { LicenseView } from "@/lib/seller-api/licenses";
import { None, ScrollTable, td, th } from "@/components/dashboard/table";
import { formatMoment } from "@/lib/format";

type Machine = LicenseView["machines"][number];

/** "Studio Mac · macOS 15.1 arm64 · v2.3.1", or what of it the app reported. */
export function machineSummary(m: Machine): string {
  return [m.name, m.platform, m.app_version ? `v${m.app_version}` : null].filter(Boolean).join(" · ");
}

/** When the machine was last seen: its last successful validation, "never" only when it has none. */
export function LastSeen({ at }: { at: string | null }) {
  return at ? <time dateTime={at}>{formatMoment(at)}</time> : <None label="never" />;
}

/**
 * A license's machines: name, platform, app version, the shortened fingerprint (the full one in a title and for
 * screen readers), activated and last seen; `action` renders a control per machine (the seller's Release).
 */
export function LicenseMachinesTable({ machines, action }: { machines: Machine[]; action?: (m: Machine) => ReactNode }) {
  return (
    <ScrollTable label="Machines" minWidth="sm:min-w-[44rem]">
      <caption className="sr-only">Machines using this license</caption>
      <thead>
        <tr>
          <th scope="col" className={th}>
            Machine
          </th>
          <th scope="col" className={th}>
            Platform
          </th>
          <th scope="col" className={th}>
            App version
          </th>
          <th scope="col" className={th}>
            Activated
          </th>
          <th scope="col" className={th}>
            Last seen
          </th>
          {action ? (
            <th scope="col" className={th}>
              <span className="sr-only">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {machines.map((m) => (
          <tr key={m.id} data-testid="machine-row" data-machine-id={m.id}>
            <td data-label="Machine" className={td}>
              <span className="block font-medium text-slate-900">{m.name ?? <span className="font-normal text-slate-600">Unnamed</span>}</span>
              <code title={m.fingerprint} className="font-mono text-xs text-slate-600">
                {m.short_fingerprint}
              </code>
              <span className="sr-only"> (full fingerprint {m.fingerprint})</span>
            </td>
            <td data-label="Platform" className={td}>
              {m.platform ?? <None label="not reported" />}
            </td>
            <td data-label="App version" className={td}>
              {m.app_version ?? <None label="not reported" />}
            </td>
            <td data-label="Activated" className={`${td} whitespace-nowrap`}>
              <time dateTime={m.activated_at}>{formatMoment(m.activated_at)}</time>
            </td>
            <td data-label="Last seen" className={`${td} whitespace-nowrap`}>
              <LastSeen at={m.last_seen_at} />
            </td>
            {action ? <td className={`${td} text-right`}>{action(m)}</td> : null}
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
}
