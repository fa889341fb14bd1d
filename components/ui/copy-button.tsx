"use client";

import { useEffect, useRef, useState } from "react";
import { buttonSecondary } from "./styles";

type Outcome = "idle" | "copied" | "selected";

/** Selects the text of the element with this id, so the user can copy it by hand. */
function selectElementText(id: string | undefined): boolean {
  const el = id ? document.getElementById(id) : null;
  const selection = typeof window.getSelection === "function" ? window.getSelection() : null;
  if (!el || !selection) return false;
  const range = document.createRange();
  range.selectNodeContents(el);
  selection.removeAllRanges();
  selection.addRange(range);
  return true;
}

/** The old synchronous copy, for pages served without a secure context (no navigator.clipboard). */
function copySelection(): boolean {
  try {
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- the fallback for where the Clipboard API is missing
    return typeof document.execCommand === "function" && document.execCommand("copy");
  } catch {
    return false;
  }
}

/**
 * Copies `text` to the clipboard and says "Copied" for two seconds. Where the Clipboard API is missing or refused,
 * it selects the text in `selectTargetId` instead (and tries the legacy copy command) so a keyboard shortcut finishes the job.
 */
export function CopyButton({
  text,
  label,
  selectTargetId,
  className = "",
}: {
  text: string;
  /** What is copied, for screen readers: "license key" makes the button "Copy license key". */
  label: string;
  /** The element showing the text, selected when the clipboard cannot be written. */
  selectTargetId?: string;
  className?: string;
}) {
  const [outcome, setOutcome] = useState<Outcome>("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  const show = (next: Outcome) => {
    setOutcome(next);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setOutcome("idle"), next === "copied" ? 2000 : 4000);
  };

  const fallback = () => {
    const selected = selectElementText(selectTargetId);
    if (selected && copySelection()) show("copied");
    else show(selected ? "selected" : "idle");
  };

  const onClick = async () => {
    // undefined outside a secure context, whatever the DOM types say
    const clipboard = typeof navigator !== "undefined" ? (navigator.clipboard as Clipboard | undefined) : undefined;
    if (clipboard && typeof clipboard.writeText === "function") {
      try {
        await clipboard.writeText(text);
        show("copied");
        return;
      } catch {
        // Permission refused or document not focused: fall through to selecting the text.
      }
    }
    fallback();
  };

  const announcement =
    outcome === "copied"
      ? `${capitalise(label)} copied to the clipboard.`
      : outcome === "selected"
        ? `${capitalise(label)} selected. Press Control+C or Command+C to copy it.`
        : "";

  return (
    <>
      <button type="button" onClick={onClick} className={`${buttonSecondary} min-w-[6.5rem] ${className}`}>
        {outcome === "copied" ? <CheckIcon /> : <ClipboardIcon />}
        <span>{outcome === "copied" ? "Copied" : outcome === "selected" ? "Selected" : "Copy"}</span>
        <span className="sr-only"> {label}</span>
      </button>
      <span role="status" aria-live="polite" className="sr-only">
        {announcement}
      </span>
    </>
  );
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function ClipboardIcon() {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      className="size-4"
    >
      <rect x="8" y="4" width="8" height="4" rx="1" />
      <path d="M16 6h1a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h1" />
    </svg>
  );
}

function CheckIcon() {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      className="size-4 text-emerald-600"
    >
      <path d="m5 12.5 4.5 4.5L19 7.5" />
    </svg>
  );
}
