import type { ArtifactView } from "@/lib/releases/read";
import { artifactPlatformLabel, formatLabel } from "./release-labels";
import { formatBytes } from "@/lib/format";
import { textLink } from "@/components/ui/styles";

/**
 * A release's files: platform (and plugin format), file name and size, and the SHA-256 for those who check. With
 * `download_path` on each artifact (a license holder's page) every file is a download link; on the public product
 * page they are listed only, since a download needs a license.
 */
export function ArtifactList({ artifacts, version }: { artifacts: ReadonlyArray<ArtifactView & { download_path?: string }>; version: string }) {
  if (artifacts.length === 0) return <p className="text-sm text-slate-600">No files in this release.</p>;
  return (
    <ul className="divide-y divide-slate-200 rounded-xl border border-slate-200 bg-white" aria-label={`Files of version ${version}`}>
      {artifacts.map((a) => {
        const label = [artifactPlatformLabel(a.platform), a.format ? formatLabel(a.format) : null].filter(Boolean).join(" · ");
        return (
          <li key={a.id} className="flex flex-col gap-1 px-4 py-3 sm:flex-row sm:items-center sm:justify-between sm:gap-4">
            <div className="min-w-0">
              <p className="text-sm font-medium text-slate-900">{label}</p>
              <p className="mt-0.5 font-mono text-xs break-all text-slate-600">
                {a.filename}
                <span className="ml-2 text-slate-500" title={`SHA-256 ${a.sha256}`}>
                  sha256:{a.sha256.slice(0, 12)}…
                </span>
              </p>
            </div>
            <div className="flex shrink-0 items-center gap-4 text-sm">
              <span className="text-slate-700">{formatBytes(a.size)}</span>
              {a.download_path ? (
                <a href={a.download_path} className={textLink} rel="nofollow">
                  Download
                  <span className="sr-only">
                    {" "}
                    {a.filename} for {label}
                  </span>
                </a>
              ) : null}
            </div>
          </li>
        );
      })}
    </ul>
  );
}
