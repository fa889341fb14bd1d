import { useEffect, useRef, type KeyboardEvent } from "react";
import { focusRing } from "@/components/ui/styles";

export interface GalleryImage {
  src: string;
  alt: string;
}

const FOCUSABLE = 'button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

/**
 * The screenshot viewer of ScreenshotGallery, loaded when it first opens: a modal dialog (showModal(), so the page
 * behind it is inert) shown while it is mounted. ← and → move between images (wrapping), Escape or Close closes it,
 * and Tab stays inside it; the gallery returns focus to the thumbnail it was opened from.
 */
export function ScreenshotLightbox({
  images,
  productName,
  index,
  onMove,
  onClose,
}: {
  images: GalleryImage[];
  productName: string;
  index: number;
  onMove: (index: number) => void;
  onClose: () => void;
}) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const count = images.length;

  // Opened as a modal when it mounts, focus on Close; the gallery unmounts it to close it.
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog || dialog.open) return;
    dialog.showModal();
    closeRef.current?.focus();
  }, []);

  const move = (step: number) => onMove((index + step + count) % count);
  // Closing the dialog itself first: its close event (onClose below) then tells the gallery, which returns focus to
  // the thumbnail once the page is no longer inert.
  const shut = () => dialogRef.current?.close();

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === "ArrowRight") {
      event.preventDefault();
      move(1);
    } else if (event.key === "ArrowLeft") {
      event.preventDefault();
      move(-1);
    } else if (event.key === "Escape") {
      event.preventDefault();
      shut();
    } else if (event.key === "Tab") {
      // showModal() makes the page inert, but Tab can still leave for the browser's own controls: keep it inside.
      const nodes = Array.from(dialogRef.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? []);
      const first = nodes[0];
      const last = nodes[nodes.length - 1];
      if (!first || !last) return;
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  };

  const current = images[index];
  const button = `inline-flex items-center justify-center gap-1.5 rounded-lg bg-white/10 px-3 py-2 text-sm font-semibold text-white hover:bg-white/20 ${focusRing} focus-visible:outline-white`;

  return (
    <dialog
      ref={dialogRef}
      aria-modal="true"
      aria-labelledby="gallery-title"
      onKeyDown={onKeyDown}
      onClose={onClose}
      onCancel={(event) => {
        event.preventDefault();
        shut();
      }}
      className="m-auto h-full max-h-none w-full max-w-none bg-slate-950/95 p-0 text-white backdrop:bg-slate-950/80"
    >
      {current ? (
        <div className="flex h-full flex-col gap-3 p-4 sm:p-6">
          <div className="flex items-center justify-between gap-3">
            <h2 id="gallery-title" className="text-sm font-medium" aria-live="polite">
              {productName}: screenshot {index + 1} of {count}
            </h2>
            <button ref={closeRef} type="button" onClick={shut} className={button}>
              Close<span className="sr-only"> the screenshot viewer</span>
            </button>
          </div>
          <div className="flex min-h-0 flex-1 items-center justify-center">
            {/* eslint-disable-next-line @next/next/no-img-element -- the same image the thumbnail shows */}
            <img src={current.src} alt={current.alt} className="max-h-full max-w-full rounded-lg object-contain" />
          </div>
          {count > 1 ? (
            <div className="flex items-center justify-center gap-3">
              <button type="button" onClick={() => move(-1)} className={button}>
                <span aria-hidden="true">←</span> Previous
              </button>
              <button type="button" onClick={() => move(1)} className={button}>
                Next <span aria-hidden="true">→</span>
              </button>
            </div>
          ) : null}
          <p className="text-center text-xs text-slate-300">{count > 1 ? "← and → move between screenshots; " : ""}Escape closes.</p>
        </div>
      ) : null}
    </dialog>
  );
}
