"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState, type SubmitEvent } from "react";
import { buttonPrimary, inputBase } from "@/components/ui/styles";
import { formatBytes } from "@/lib/format";

/**
 * The file's name as the server takes it (letters, digits, spaces and . _ + - ( ), at most 120 characters, no
 * leading dot, no ".."): anything else becomes "-", so "Tape Warmth–1.0.zip" uploads as "Tape Warmth-1.0.zip".
 */
export function storedFilename(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._ +()-]+/g, "-")
    .replace(/\.{2,}/g, ".")
    .replace(/^[.\s]+/, "")
    .trim();
  // Keep the extension when shortening: it decides the file type.
  if (cleaned.length <= 120) return cleaned || "download";
  const ext = /(\.tar\.gz|\.[A-Za-z0-9]{1,10})$/i.exec(cleaned)?.[0] ?? "";
  return cleaned.slice(0, 120 - ext.length).trim() + ext;
}

type Status = { kind: "idle" } | { kind: "sending"; sent: number; total: number } | { kind: "done"; text: string } | { kind: "error"; text: string };

const text = (value: FormDataEntryValue | null): string => (typeof value === "string" ? value : "");

/** The refusal's words: the problem document's detail, else its title, else the HTTP status. */
function problemText(xhr: XMLHttpRequest): string {
  try {
    const body = JSON.parse(xhr.responseText) as { detail?: unknown; title?: unknown };
    if (typeof body.detail === "string" && body.detail) return body.detail;
    if (typeof body.title === "string" && body.title) return body.title;
  } catch {
    // Not JSON (a proxy's error page): fall through to the status.
  }
  return `The upload was refused (HTTP ${xhr.status}).`;
}

/**
 * Uploads one file to a draft release: the file goes as the raw body of
 * `PUT /api/v1/products/{id}/releases/{version}/artifacts?platform=&format=&filename=` (streamed to the object
 * store by the server, checked while it arrives), with the seller's session cookie. XMLHttpRequest rather than fetch:
 * only it reports upload progress in browsers. A refusal shows the problem document's detail; a success reloads the
 * page's server-rendered list of files.
 */
export function ArtifactUpload({
  productId,
  version,
  platforms,
  formats,
  maxMb,
  roomBytes,
}: {
  productId: string;
  version: string;
  platforms: ReadonlyArray<{ value: string; label: string }>;
  formats: ReadonlyArray<{ value: string; label: string }>;
  /** ARTIFACT_MAX_MB: the server's limit (MiB), checked here first so a too large file is not sent at all. */
  maxMb: number;
  /** What is left of the seller's storage (ARTIFACT_QUOTA_MB), checked here first too; the server checks again. */
  roomBytes: number;
}) {
  const maxBytes = maxMb * 1024 * 1024;
  const router = useRouter();
  const id = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const [chosen, setChosen] = useState<File | null>(null);

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const file = fileRef.current?.files?.[0];
    if (!file) {
      setStatus({ kind: "error", text: "Choose a file to upload." });
      return;
    }
    if (file.size > maxBytes) {
      setStatus({ kind: "error", text: `${file.name} is ${formatBytes(file.size)}; a file may be at most ${maxMb} MB.` });
      return;
    }
    if (file.size > roomBytes) {
      setStatus({
        kind: "error",
        text: `${file.name} is ${formatBytes(file.size)}, but only ${formatBytes(roomBytes)} of your release file storage is left. Delete draft releases or their files to make room.`,
      });
      return;
    }
    const query = new URLSearchParams({
      platform: text(form.get("platform")),
      format: text(form.get("format")),
      filename: storedFilename(file.name),
    });
    const url = `/api/v1/products/${encodeURIComponent(productId)}/releases/${encodeURIComponent(version)}/artifacts?${query}`;
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => setStatus({ kind: "sending", sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      if (xhr.status === 201) {
        setStatus({ kind: "done", text: `${storedFilename(file.name)} uploaded (${formatBytes(file.size)}).` });
        setChosen(null);
        if (fileRef.current) fileRef.current.value = "";
        router.refresh();
      } else {
        setStatus({ kind: "error", text: problemText(xhr) });
      }
    };
    xhr.onerror = () => setStatus({ kind: "error", text: "The connection failed during the upload. Try again." });
    xhr.onabort = () => setStatus({ kind: "error", text: "The upload was cancelled." });
    setStatus({ kind: "sending", sent: 0, total: file.size });
    xhr.send(file);
  };

  const sending = status.kind === "sending";
  const label = "block text-sm font-medium text-slate-800";
  return (
    <form
      onSubmit={onSubmit}
      aria-label={`Upload a file to version ${version}`}
      className="space-y-3 rounded-xl border border-dashed border-slate-300 p-4"
    >
      <div className="grid gap-3 sm:grid-cols-3">
        <div>
          <label htmlFor={`${id}-platform`} className={label}>
            Platform
          </label>
          <select id={`${id}-platform`} name="platform" required className={`${inputBase} mt-1.5`} defaultValue={platforms[0]?.value}>
            {platforms.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-format`} className={label}>
            Format
          </label>
          <select id={`${id}-format`} name="format" className={`${inputBase} mt-1.5`} defaultValue="">
            <option value="">Application</option>
            {formats.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label} plugin
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-file`} className={label}>
            File
          </label>
          <input
            ref={fileRef}
            id={`${id}-file`}
            name="file"
            type="file"
            required
            onChange={(e) => {
              setChosen(e.currentTarget.files?.[0] ?? null);
              setStatus({ kind: "idle" });
            }}
            aria-describedby={`${id}-hint`}
            className="mt-1.5 block w-full text-sm text-slate-700 file:mr-3 file:rounded-md file:border-0 file:bg-slate-100 file:px-3 file:py-2 file:text-sm file:font-medium file:text-slate-800 hover:file:bg-slate-200"
          />
        </div>
      </div>
      <p id={`${id}-hint`} className="text-xs text-slate-600">
        Up to {maxMb} MB. One file per platform and format.
        {chosen ? ` Stored as ${storedFilename(chosen.name)} (${formatBytes(chosen.size)}).` : ""}
      </p>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" disabled={sending} aria-disabled={sending} className={buttonPrimary}>
          {sending ? "Uploading…" : "Upload file"}
        </button>
        {sending ? (
          <div className="flex min-w-48 flex-1 items-center gap-3">
            <progress
              value={status.sent}
              max={status.total || 1}
              aria-label="Upload progress"
              className="h-2 w-full overflow-hidden rounded-full [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-indigo-600"
            />
            <span className="text-xs whitespace-nowrap text-slate-700 tabular-nums">
              {status.total ? Math.floor((status.sent / status.total) * 100) : 0} %
            </span>
          </div>
        ) : null}
      </div>
      <div aria-live="polite">
        {status.kind === "done" ? (
          <p role="status" className="text-sm font-medium text-emerald-800">
            {status.text}
          </p>
        ) : null}
        {status.kind === "error" ? (
          <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {status.text}
          </p>
        ) : null}
      </div>
    </form>
  );
}
