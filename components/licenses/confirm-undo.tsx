"use client";

import { useRouter } from "next/navigation";
import { createContext, useCallback, useContext, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { buttonPrimary, buttonSecondary } from "@/components/ui/styles";

/** What a server action answers to the confirm/undo flow (the forms without JS redirect instead). */
export interface ActionResult {
  ok: boolean;
  message: string;
}

/** How long the Undo button stays offered; the server accepts an undo for a minute (UNDO_WINDOW_MS). */
const UNDO_SHOWN_MS = 15_000;

interface Offer {
  message: string;
  undo?: () => Promise<ActionResult>;
  n: number;
}

const OfferContext = createContext<(message: string, undo?: () => Promise<ActionResult>) => void>(() => undefined);

/**
 * Holds the "Released … Undo" message of the actions inside it, announced by a polite live region. It sits above the
 * rows that change, so the message and its Undo survive the refresh that removes the released machine.
 */
export function UndoProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  const [offer, setOffer] = useState<Offer | null>(null);
  const [busy, setBusy] = useState(false);
  const undoButton = useRef<HTMLButtonElement>(null);

  const show = useCallback(
    (message: string, undo?: () => Promise<ActionResult>) => {
      setOffer({ message, undo, n: Date.now() });
      router.refresh();
    },
    [router],
  );

  useEffect(() => {
    if (!offer?.undo) return;
    // Keyboard users land on Undo: the control they pressed is gone with its row.
    undoButton.current?.focus();
    const n = offer.n;
    const t = window.setTimeout(() => setOffer((o) => (o && o.n === n ? { message: o.message, n } : o)), UNDO_SHOWN_MS);
    return () => window.clearTimeout(t);
  }, [offer]);

  async function undo() {
    if (!offer?.undo || busy) return;
    setBusy(true);
    try {
      const result = await offer.undo();
      setOffer({ message: result.message, n: Date.now() });
      router.refresh();
    } finally {
      setBusy(false);
    }
  }

  return (
    <OfferContext value={show}>
      {children}
      <div role="status" aria-live="polite" className="fixed inset-x-0 bottom-4 z-50 flex justify-center px-4" data-testid="undo-region">
        {offer ? (
          <div className="flex max-w-xl items-center gap-3 rounded-xl bg-slate-900 px-4 py-3 text-sm text-white shadow-lg">
            <p>{offer.message}</p>
            {offer.undo ? (
              <button
                ref={undoButton}
                type="button"
                onClick={undo}
                disabled={busy}
                className="rounded-md bg-white px-3 py-1.5 font-semibold text-slate-900 hover:bg-slate-100 focus-visible:ring-2 focus-visible:ring-indigo-400 focus-visible:outline-none disabled:opacity-60"
              >
                {busy ? "Undoing…" : "Undo"}
              </button>
            ) : null}
            <button
              type="button"
              onClick={() => setOffer(null)}
              className="rounded-md px-2 py-1 text-slate-300 hover:text-white focus-visible:ring-2 focus-visible:ring-indigo-400 focus-visible:outline-none"
            >
              <span aria-hidden="true">×</span>
              <span className="sr-only">Dismiss message</span>
            </button>
          </div>
        ) : null}
      </div>
    </OfferContext>
  );
}

/**
 * A form whose submission asks first: without JavaScript it posts to `fallback` (a server action that redirects, as
 * before); with it, submitting shows the question with Confirm and Cancel (Escape cancels, focus returns), then runs
 * `run` and offers `undo` for a few seconds through the enclosing UndoProvider.
 */
export function ConfirmAction({
  fallback,
  run,
  undo,
  label,
  srLabel,
  question,
  confirmLabel,
  danger = false,
  triggerClassName,
  className,
  children,
}: {
  fallback: (fd: FormData) => Promise<void>;
  run: (fd: FormData) => Promise<ActionResult>;
  undo?: () => Promise<ActionResult>;
  label: string;
  /** Appended for screen readers to the trigger ("machine abcd…"). */
  srLabel?: string;
  question: string;
  confirmLabel: string;
  danger?: boolean;
  triggerClassName: string;
  className?: string;
  /** Fields of the form (a reason, hidden ids). */
  children?: ReactNode;
}) {
  const offer = useContext(OfferContext);
  const [stage, setStage] = useState<"idle" | "confirm" | "busy">("idle");
  const [error, setError] = useState<string | null>(null);
  const data = useRef<FormData | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const questionId = useId();

  useEffect(() => {
    if (stage === "confirm") confirmButton.current?.focus();
  }, [stage]);

  function cancel() {
    setStage("idle");
    requestAnimationFrame(() => trigger.current?.focus());
  }

  async function confirm() {
    setStage("busy");
    setError(null);
    try {
      const result = await run(data.current ?? new FormData());
      if (result.ok) {
        setStage("idle");
        offer(result.message, undo);
      } else {
        setError(result.message);
        setStage("idle");
      }
    } catch {
      setError("That did not work; reload the page and try again.");
      setStage("idle");
    }
  }

  function onKeyDown(e: KeyboardEvent) {
    if (e.key === "Escape") {
      e.preventDefault();
      cancel();
    }
  }

  return (
    <div className={className}>
      <form
        action={fallback}
        onSubmit={(e) => {
          e.preventDefault();
          data.current = new FormData(e.currentTarget);
          setStage("confirm");
        }}
      >
        {children}
        {stage === "idle" ? (
          <button ref={trigger} type="submit" className={triggerClassName}>
            {label}
            {srLabel ? <span className="sr-only"> {srLabel}</span> : null}
          </button>
        ) : null}
      </form>
      {stage !== "idle" ? (
        <div
          role="group"
          aria-labelledby={questionId}
          onKeyDown={onKeyDown}
          className="mt-2 rounded-lg border border-amber-300 bg-amber-50 p-3 text-left"
        >
          <p id={questionId} className="text-sm font-medium text-slate-900">
            {question}
          </p>
          <div className="mt-2 flex flex-wrap gap-2">
            <button
              ref={confirmButton}
              type="button"
              onClick={confirm}
              disabled={stage === "busy"}
              className={danger ? `${buttonPrimary} bg-red-700 px-3 py-1.5 hover:bg-red-800` : `${buttonPrimary} px-3 py-1.5`}
            >
              {stage === "busy" ? "Working…" : confirmLabel}
            </button>
            <button type="button" onClick={cancel} disabled={stage === "busy"} className={`${buttonSecondary} px-3 py-1.5`}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      ) : null}
    </div>
  );
}
