import type { LicenseDownloads as Downloads } from "@/lib/marketplace/license-downloads";
import { ArtifactList } from "@/components/store/artifact-list";
import { Badge } from "@/components/ui/badge";
import { formatDay } from "@/lib/format";
import { focusRing, textLink } from "@/components/ui/styles";

/**
 * Which release leads: the newest stable one (a buyer is on the stable channel), or the newest of all when only betas
 * exist. Betas newer than it are offered apart, never first; older releases after it.
 */
export function leadingRelease<R extends { channel: string }>(releases: readonly R[]): { lead: R | undefined; betas: R[]; older: R[] } {
  const at = Math.max(
    0,
    releases.findIndex((r) => r.channel === "stable"),
  );
  return { lead: releases[at], betas: releases.slice(0, at), older: releases.slice(at + 1) };
}

/**
 * A license's downloads: the releases it is entitled to, each file with its license-gated link (the link checks the
 * license again when followed and redirects to a short-lived signed URL). The newest stable release is shown open
 * (leadingRelease), newer betas and older releases in closed `<details>`. Says until when updates are included, and
 * which newer version needs a new license. `now` is the request's time (a server component renders once per request).
 */
export function LicenseDownloads({
  downloads,
  productName,
  productPage,
  idPrefix,
  now,
}: {
  downloads: Downloads;
  productName: string;
  productPage: string;
  idPrefix: string;
  now: number;
}) {
  const { lead: newest, betas, older } = leadingRelease(downloads.releases);
  const until = downloads.updates_until;
  const heading = `${idPrefix}-downloads`;
  return (
    <section aria-labelledby={heading} className="space-y-3" data-testid="license-downloads">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h3 id={heading} className="text-base font-semibold text-slate-900">
          Downloads
        </h3>
        {until ? (
          <p className="text-sm text-slate-700" data-testid="updates-until">
            {new Date(until).getTime() > now ? "Updates until" : "Updates ended"} <time dateTime={until}>{formatDay(until)}</time>
          </p>
        ) : null}
      </div>
      {downloads.newer_not_entitled ? (
        <p className="rounded-lg border border-amber-200 bg-amber-50 px-3.5 py-2.5 text-sm text-amber-900" data-testid="newer-not-entitled">
          A newer version {downloads.newer_not_entitled} needs a new license.{" "}
          <a href={`${productPage}#buy`} className={textLink}>
            See {productName}
          </a>
        </p>
      ) : null}
      {newest ? (
        <>
          <div>
            <p className="mb-2 flex flex-wrap items-center gap-2 text-sm text-slate-700">
              <span className="font-semibold text-slate-900">Version {newest.version}</span>
              {newest.channel === "beta" ? <Badge tone="accent">Beta</Badge> : null}
              {newest.published_at ? <time dateTime={newest.published_at}>{formatDay(newest.published_at)}</time> : null}
            </p>
            <ArtifactList artifacts={newest.artifacts} version={newest.version} />
          </div>
          {betas.length > 0 ? (
            <details className="rounded-xl border border-slate-200 bg-white" data-testid="beta-downloads">
              <summary className={`cursor-pointer rounded-xl px-4 py-2.5 text-sm font-medium text-slate-800 ${focusRing}`}>
                Beta versions ({betas.length}): previews, not yet stable
              </summary>
              <div className="space-y-4 border-t border-slate-200 px-4 py-4">
                {betas.map((r) => (
                  <div key={r.version}>
                    <p className="mb-2 flex flex-wrap items-center gap-2 text-sm text-slate-700">
                      <span className="font-semibold text-slate-900">Version {r.version}</span>
                      <Badge tone="accent">Beta</Badge>
                    </p>
                    <ArtifactList artifacts={r.artifacts} version={r.version} />
                  </div>
                ))}
              </div>
            </details>
          ) : null}
          {older.length > 0 ? (
            <details className="rounded-xl border border-slate-200 bg-white">
              <summary className={`cursor-pointer rounded-xl px-4 py-2.5 text-sm font-medium text-slate-800 ${focusRing}`}>
                Earlier versions ({older.length})
              </summary>
              <div className="space-y-4 border-t border-slate-200 px-4 py-4">
                {older.map((r) => (
                  <div key={r.version}>
                    <p className="mb-2 text-sm text-slate-700">
                      <span className="font-semibold text-slate-900">Version {r.version}</span>
                      {r.published_at ? (
                        <>
                          {" · "}
                          <time dateTime={r.published_at}>{formatDay(r.published_at)}</time>
                        </>
                      ) : null}
                    </p>
                    <ArtifactList artifacts={r.artifacts} version={r.version} />
                  </div>
                ))}
              </div>
            </details>
          ) : null}
        </>
      ) : (
        <p className="rounded-lg border border-dashed border-slate-300 bg-white px-4 py-3 text-sm text-slate-700">
          Nothing to download with this license right now: it is not in force, or no release is included in it.
        </p>
      )}
    </section>
  );
}
