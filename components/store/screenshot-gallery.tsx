"use client";

import { lazy, Suspense, useRef, useState, type MouseEvent } from "react";
import { focusRing } from "@/components/ui/styles";
import type { GalleryImage } from "./screenshot-lightbox";

// The viewer's code loads on the first click, not with the page: a product page's first load stays light on a phone.
const loadLightbox = () => import("./screenshot-lightbox");
const ScreenshotLightbox = lazy(() => loadLightbox().then((m) => ({ default: m.ScreenshotLightbox })));

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
  const openerRef = useRef<HTMLAnchorElement | null>(null);
  const count = images.length;

  const open = (i: number) => (event: MouseEvent<HTMLAnchorElement>) => {
    // A new tab, a download or a middle click keep the link's own behaviour.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    openerRef.current = event.currentTarget;
    setIndex(i);
  };

  // Called once the dialog has closed (the page is no longer inert), so focus can return to the thumbnail.
  const close = () => {
    setIndex(null);
    openerRef.current?.focus();
  };

  return (
    <>
      <ul className={`mt-4 grid gap-4 ${count > 1 ? "sm:grid-cols-2" : ""}`}>
        {images.map((image, i) => (
          <li key={image.src}>
            <a
              href={image.src}
              onClick={open(i)}
              // Hovering or focusing a thumbnail fetches the viewer's code before the click needs it.
              onPointerEnter={() => void loadLightbox()}
              onFocus={() => void loadLightbox()}
              aria-haspopup="dialog"
              className={`block overflow-hidden rounded-xl border border-slate-200 bg-slate-900 shadow-sm ${focusRing}`}
            >
              {/* eslint-disable-next-line @next/next/no-img-element -- a seller's upload or a bundled screenshot: this site's only */}
              <img src={image.src} alt={image.alt} width={1280} height={800} loading="lazy" decoding="async" className="h-auto w-full" />
            </a>
          </li>
        ))}
      </ul>

      {index !== null ? (
        <Suspense fallback={null}>
          <ScreenshotLightbox images={images} productName={productName} index={index} onMove={setIndex} onClose={close} />
        </Suspense>
      ) : null}
    </>
  );
}
