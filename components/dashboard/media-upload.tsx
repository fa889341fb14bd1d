"use client";

import { useRouter } from "next/navigation";
import { useId, useRef, useState, type SubmitEvent } from "react";
import { buttonPrimary, inputBase } from "@/components/ui/styles";
import { formatBytes } from "@/lib/format";

type Status = { kind: "idle" } | { kind: "sending"; sent: number; total: number } | { kind: "done"; text: string } | { kind: "error"; text: string };

export interface MediaKindChoice {
  value: string;
  label: string;
  /** The accept attribute's types. */
  accept: string;
  maxBytes: number;
  /** Alt text is required for images. */
  needsAlt: boolean;
}

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
  return `The upload was refused (HTTP ${String(xhr.status)}).`;
}

/**
 * Uploads one media file (a cover, screenshot or demo): the file goes as the raw body of
 * `PUT /api/v1/products/{id}/media/upload?kind=&alt=&caption=` with the seller's session cookie (a server action
 * could carry at most 4 MB), where the server checks its bytes. XMLHttpRequest for the progress; a success reloads the
 * page's server-rendered list.
 */
export function MediaUpload({ productId, kinds }: { productId: string; kinds: readonly MediaKindChoice[] }) {
  const router = useRouter();
  const id = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const [kind, setKind] = useState(kinds[0]?.value ?? "cover");
  const [status, setStatus] = useState<Status>({ kind: "idle" });
  const choice = kinds.find((k) => k.value === kind) ?? kinds[0];

  const onSubmit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const file = fileRef.current?.files?.[0];
    if (!file || !choice) {
      setStatus({ kind: "error", text: "Choose a file to upload." });
      return;
    }
    if (file.size > choice.maxBytes) {
      setStatus({
        kind: "error",
        text: `${file.name} is ${formatBytes(file.size)}; a ${choice.label.toLowerCase()} may be at most ${formatBytes(choice.maxBytes)}.`,
      });
      return;
    }
    const query = new URLSearchParams({ kind: choice.value, alt: text(form.get("alt")), caption: text(form.get("caption")) });
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", `/api/v1/products/${encodeURIComponent(productId)}/media/upload?${query.toString()}`);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = (e) => {
      setStatus({ kind: "sending", sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    };
    xhr.onload = () => {
      if (xhr.status === 201) {
        setStatus({ kind: "done", text: `${file.name} uploaded.` });
        formElement.reset();
        router.refresh();
      } else {
        setStatus({ kind: "error", text: problemText(xhr) });
      }
    };
    xhr.onerror = () => {
      setStatus({ kind: "error", text: "The connection failed during the upload. Try again." });
    };
    setStatus({ kind: "sending", sent: 0, total: file.size });
    xhr.send(file);
  };

  const label = "block text-sm font-medium text-slate-800";
  return (
    <form onSubmit={onSubmit} aria-label="Upload media" className="mt-4 space-y-3 rounded-xl border border-dashed border-slate-300 p-4">
      <div className="grid gap-3 sm:grid-cols-2">
        <div>
          <label htmlFor={`${id}-kind`} className={label}>
            Kind
          </label>
          <select
            id={`${id}-kind`}
            name="kind"
            className={`${inputBase} mt-1.5`}
            value={kind}
            onChange={(e) => {
              setKind(e.target.value);
            }}
          >
            {kinds.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-file`} className={label}>
            File
          </label>
          <input id={`${id}-file`} ref={fileRef} type="file" name="file" required accept={choice?.accept} className={`${inputBase} mt-1.5`} />
        </div>
        <div>
          <label htmlFor={`${id}-alt`} className={label}>
            Alt text {choice?.needsAlt ? "(required)" : "(optional)"}
          </label>
          <input id={`${id}-alt`} name="alt" maxLength={300} required={choice?.needsAlt} className={`${inputBase} mt-1.5`} />
        </div>
        <div>
          <label htmlFor={`${id}-caption`} className={label}>
            Caption (optional)
          </label>
          <input id={`${id}-caption`} name="caption" maxLength={200} className={`${inputBase} mt-1.5`} />
        </div>
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <button type="submit" className={buttonPrimary} disabled={status.kind === "sending"}>
          Upload
        </button>
        <p role="status" className="text-sm text-slate-700">
          {status.kind === "sending"
            ? `Sending… ${String(Math.round((status.sent / Math.max(1, status.total)) * 100))} %`
            : status.kind === "done" || status.kind === "error"
              ? status.text
              : ""}
        </p>
      </div>
    </form>
  );
}
