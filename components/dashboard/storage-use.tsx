import { formatBytes } from "@/lib/format";
import type { ArtifactStorage } from "@/lib/releases/quota";
import { card } from "@/components/ui/styles";

/**
 * The seller's release file storage against ARTIFACT_QUOTA_MB ("Storage: 1.2 GB of 5.4 GB used"), summed from the
 * database over all their products' releases: an upload that does not fit is refused (413 artifact_quota_exceeded).
 */
export function StorageUse({ storage }: { storage: ArtifactStorage }) {
  const { used_bytes: used, quota_bytes: quota } = storage;
  const share = quota > 0 ? Math.min(1, used / quota) : 1;
  const percent = Math.floor(share * 100);
  const tight = share >= 0.9;
  return (
    <section id="storage" aria-labelledby="storage-heading" className={`${card} p-5 sm:p-6`}>
      <h2 id="storage-heading" className="text-base font-semibold text-slate-900">
        Release file storage
      </h2>
      <p id="storage-use" className="mt-2 text-sm text-slate-800 tabular-nums">
        Storage: {formatBytes(used)} of {formatBytes(quota)} used
      </p>
      <div
        role="meter"
        aria-labelledby="storage-use"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent} %`}
        className="mt-2 h-2 w-full overflow-hidden rounded-full bg-slate-200"
      >
        <div className={`h-full rounded-full ${tight ? "bg-amber-500" : "bg-indigo-600"}`} style={{ width: `${share * 100}%` }} />
      </div>
      <p className="mt-2 text-xs text-slate-600">
        The files of all your products&apos; releases, drafts included. {tight ? "Almost full: " : ""}Deleting a draft or one of its files makes room;
        published files stay.
      </p>
    </section>
  );
}
