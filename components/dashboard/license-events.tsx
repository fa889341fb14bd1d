import type { LicenseEventView } from "@/lib/seller-api/licenses";
import { formatMoment } from "@/lib/format";

const ACTOR_LABELS: Record<string, string> = {
  buyer: "Buyer",
  seller: "Seller",
  operator: "Operator",
  app: "The app",
  payment: "Payment provider",
  system: "System",
};

/** Who did it, in words: "Seller (ana@example.com)", "Seller (token:CI)", "The app". */
function actorLabel(actor: { type: string; name: string | null }): string {
  const kind = ACTOR_LABELS[actor.type] ?? actor.type;
  return actor.name ? `${kind} (${actor.name})` : kind;
}

/**
 * A license's event log, newest first: what happened, who did it and when; failed validations as one line per error
 * code and hour ("12 failed validations (EXPIRED) in the hour of …"). Shared by the seller's license page and the
 * operator's console.
 */
export function LicenseEventLog({ events, more }: { events: LicenseEventView[]; more?: boolean }) {
  if (events.length === 0) {
    return (
      <p className="rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center text-sm text-slate-600">Nothing recorded yet.</p>
    );
  }
  return (
    <>
      <ol
        aria-label="License events, newest first"
        data-testid="license-events"
        className="divide-y divide-slate-100 rounded-2xl border border-slate-200 bg-white shadow-sm"
      >
        {events.map((e) => (
          <li key={e.id} data-event-type={e.type} className="grid gap-1 px-4 py-3 text-sm sm:grid-cols-[12rem_minmax(0,1fr)] sm:gap-4">
            <time dateTime={e.at} className="whitespace-nowrap text-slate-600">
              {formatMoment(e.at)}
            </time>
            <div className="min-w-0">
              <p className={`wrap-anywhere ${e.type === "validation_failed" ? "text-amber-800" : "text-slate-900"}`}>{e.summary}</p>
              <p className="text-xs text-slate-600">
                <span className="sr-only">By </span>
                {actorLabel(e.actor)}
              </p>
            </div>
          </li>
        ))}
      </ol>
      {more ? (
        <p className="mt-2 text-sm text-slate-600">Older events are available through the API (GET /api/v1/licenses/&#123;id&#125;/events).</p>
      ) : null}
    </>
  );
}
