import type { ReleaseView } from "@/lib/releases/read";
import { Badge } from "@/components/ui/badge";
import { formatDay } from "@/lib/format";
import { focusRing } from "@/components/ui/styles";
import { ArtifactList } from "./artifact-list";

/**
 * Rendered release notes. `notes_html` comes from lib/releases/notes.ts (markdown-it with raw HTML off, so every
 * tag in it is one markdown-it wrote and every text is escaped; links get rel="nofollow ugc"): that is the one
 * string this page inserts as HTML.
 */
export function ReleaseNotes({ html }: { html: string }) {
  if (!html.trim()) return <p className="text-sm text-slate-600">No release notes.</p>;
  return (
    <div
      className="release-notes max-w-3xl space-y-3 text-sm leading-6 break-words text-slate-700 [&_a]:font-medium [&_a]:text-indigo-700 [&_a]:underline [&_code]:rounded [&_code]:bg-slate-100 [&_code]:px-1 [&_code]:font-mono [&_h1]:text-base [&_h1]:font-semibold [&_h2]:text-base [&_h2]:font-semibold [&_h3]:font-semibold [&_ol]:list-decimal [&_ol]:pl-5 [&_pre]:overflow-x-auto [&_pre]:rounded-lg [&_pre]:bg-slate-100 [&_pre]:p-3 [&_ul]:list-disc [&_ul]:pl-5"
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}

/**
 * The changelog: published releases newest first, each a `<details>` (the newest open) with its date, channel,
 * notes and files. Works without JavaScript: `<details>` is the browser's own disclosure widget.
 */
export function ReleaseChangelog({ releases, latestVersion }: { releases: readonly ReleaseView[]; latestVersion: string | null }) {
  return (
    <ol className="mt-4 space-y-3">
      {releases.map((r, i) => (
        <li key={r.version}>
          <details open={i === 0} className="group rounded-xl border border-slate-200 bg-white shadow-sm">
            <summary
              className={`flex cursor-pointer list-none flex-wrap items-center gap-x-3 gap-y-1 rounded-xl px-4 py-3 [&::-webkit-details-marker]:hidden ${focusRing}`}
            >
              <span aria-hidden="true" className="text-slate-500 transition-transform group-open:rotate-90">
                ▸
              </span>
              <span className="font-semibold text-slate-900">Version {r.version}</span>
              {r.channel === "beta" ? <Badge tone="accent">Beta</Badge> : null}
              {r.version === latestVersion ? <Badge tone="success">Latest</Badge> : null}
              {r.published_at ? (
                <time dateTime={r.published_at} className="text-sm text-slate-600">
                  {formatDay(r.published_at)}
                </time>
              ) : null}
            </summary>
            <div className="space-y-4 border-t border-slate-200 px-4 py-4">
              <ReleaseNotes html={r.notes_html} />
              <ArtifactList artifacts={r.artifacts} version={r.version} />
            </div>
          </details>
        </li>
      ))}
    </ol>
  );
}
