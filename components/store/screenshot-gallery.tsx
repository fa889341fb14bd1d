"use client";

import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type MouseEvent } from "react";
import { focusRing } from "@/components/ui/styles";

export interface GalleryImage {
  src: string;
  alt: string;
}

const FOCUSABLE = 'button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

/**
 * A product's screenshots: a grid of links to the images, and with JavaScript a lightbox over the page. Without
 * JavaScript (or with a modifier key held) each thumbnail is a plain link to its image.
 *
 * The lightbox is a modal dialog (`<dialog>` opened with showModal(), so the page behind it is inert, plus
 * aria-modal): it opens on a click or Enter on a thumbnail, ← and → move between images (wrapping), Escape or the
 * Close button closes it, Tab stays inside it, and closing returns focus to the thumbnail it was opened from. The
 * images are this site's own (uploads, or bundled screenshots: the page passes only what productImagePaths in
 * lib/urls.ts keeps), the same the thumbnails already load: opening the lightbox makes no new kind of request.
 */
export function ScreenshotGallery({ images, productName }: { images: GalleryImage[]; productName: string }) {
  const [index, setIndex] = useState<number | null>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  const openerRef = useRef<HTMLAnchorElement | null>(null);
  const count = images.length;

  const close = useCallback(() => {
    setIndex(null);
  }, []);

  // Open and close the native dialog with the state; focus goes to Close on opening and back to the opener after.
  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (index !== null && !dialog.open) {
      dialog.showModal();
      closeRef.current?.focus();
    } else if (index === null && dialog.open) {
      dialog.close();
    }
  }, [index]);

  const onDialogClose = () => {
    setIndex(null);
    openerRef.current?.focus();
  };

  const open = (i: number) => (event: MouseEvent<HTMLAnchorElement>) => {
    // A new tab, a download or a middle click keep the link's own behaviour.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    openerRef.current = event.currentTarget;
    setIndex(i);
  };

  const move = (step: number) => setIndex((i) => (i === null ? i : (i + step + count) % count));

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    if (event.key === "ArrowRight") {
      event.preventDefault();
      move(1);
    } else if (event.key === "ArrowLeft") {
      event.preventDefault();
      move(-1);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
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

  const current = index === null ? null : images[index];
  const button = `inline-flex items-center justify-center gap-1.5 rounded-lg bg-white/10 px-3 py-2 text-sm font-semibold text-white hover:bg-white/20 ${focusRing} focus-visible:outline-white`;

  return (
    <>
      <ul className={`mt-4 grid gap-4 ${count > 1 ? "sm:grid-cols-2" : ""}`}>
        {images.map((image, i) => (
          <li key={image.src}>
            <a
              href={image.src}
              onClick={open(i)}
              aria-haspopup="dialog"
              className={`block overflow-hidden rounded-xl border border-slate-200 bg-slate-900 shadow-sm ${focusRing}`}
            >
              {/* eslint-disable-next-line @next/next/no-img-element -- a seller's upload or a bundled screenshot: this site's only */}
              <img src={image.src} alt={image.alt} width={1280} height={800} loading="lazy" decoding="async" className="h-auto w-full" />
            </a>
          </li>
        ))}
      </ul>

      <dialog
        ref={dialogRef}
        aria-modal="true"
        aria-labelledby="gallery-title"
        onKeyDown={onKeyDown}
        onClose={onDialogClose}
        onCancel={(event) => {
          event.preventDefault();
          close();
        }}
        className="m-auto h-full max-h-none w-full max-w-none bg-slate-950/95 p-0 text-white backdrop:bg-slate-950/80"
      >
        {current && index !== null ? (
          <div className="flex h-full flex-col gap-3 p-4 sm:p-6">
            <div className="flex items-center justify-between gap-3">
              <h2 id="gallery-title" className="text-sm font-medium" aria-live="polite">
                {productName}: screenshot {index + 1} of {count}
              </h2>
              <button ref={closeRef} type="button" onClick={close} className={button}>
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
    </>
  );
}
