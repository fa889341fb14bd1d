import type { MediaView } from "@/lib/media/schemas";
import { mediaSrcSet } from "@/lib/media/variant";
import { focusRing } from "@/components/ui/styles";

/**
 * A product's uploaded media on its page, server-rendered with no client JavaScript: the cover, a gallery whose
 * thumbnails are links to the picture they show (CSS `:target` shows it; the first is shown until one is chosen, and
 * without CSS every picture is a link), and native players for audio and video demos. Files are this site's own
 * (/uploads/media/…), so the page's strict CSP holds.
 */

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
const seconds = (ms: number | null) => (ms === null ? null : `${String(Math.round(ms / 1000))} s`);

/** The wide cover art: loaded at once (it is what a visitor sees first), sized by its width and height. */
export function ProductCover({ cover }: { cover: MediaView }) {
  return (
    // eslint-disable-next-line @next/next/no-img-element -- an upload of this site, shown at its own size
    <img
      src={cover.url}
      alt={cover.alt}
      width={cover.width ?? 1200}
      height={cover.height ?? 630}
      fetchPriority="high"
      decoding="async"
      className="aspect-[1200/630] w-full rounded-2xl border border-slate-200 bg-slate-100 object-cover shadow-sm"
    />
  );
}

/** A gallery thumbnail's width at 64 px high. */
const thumbWidth = (m: MediaView) => (m.width && m.height ? Math.round((64 * m.width) / m.height) : 112);

/** Screenshots: one shown large, thumbnails below that link to each. */
export function MediaGallery({ images, productName }: { images: MediaView[]; productName: string }) {
  if (images.length === 0) return null;
  const idOf = (m: MediaView) => `shot-${m.id}`;
  return (
    <div className="mt-4">
      <div className="[&:not(:has(figure:target))>figure:first-child]:block">
        {images.map((m, i) => (
          <figure key={m.id} id={idOf(m)} className="hidden scroll-mt-6 target:block">
            <a href={m.url} className={`block rounded-xl ${focusRing}`}>
              {/* eslint-disable-next-line @next/next/no-img-element -- an upload of this site, shown at its own size */}
              <img
                src={m.url}
                srcSet={mediaSrcSet(m)}
                sizes="(min-width: 1280px) 52rem, (min-width: 1024px) 62vw, 100vw"
                alt={m.alt}
                width={m.width ?? undefined}
                height={m.height ?? undefined}
                loading="lazy"
                decoding="async"
                className="h-auto max-h-[36rem] w-full rounded-xl border border-slate-200 bg-slate-100 object-contain"
              />
              <span className="sr-only"> (open the full-size image)</span>
            </a>
            <figcaption className="mt-2 text-sm text-slate-600">
              {m.caption || `${productName}: screenshot ${String(i + 1)} of ${String(images.length)}`}
            </figcaption>
          </figure>
        ))}
      </div>
      {images.length > 1 ? (
        <ul aria-label="Choose a screenshot" className="mt-3 flex gap-2 overflow-x-auto pb-1">
          {images.map((m, i) => (
            <li key={m.id} className="shrink-0">
              <a
                href={`#${idOf(m)}`}
                aria-label={`Screenshot ${String(i + 1)}: ${m.alt}`}
                className={`block rounded-lg border border-slate-200 hover:border-indigo-400 ${focusRing}`}
              >
                {/* 64 px high: the narrow copy, not the original (up to 4 MiB), unless the screen is dense enough to need it. */}
                {/* eslint-disable-next-line @next/next/no-img-element -- an upload of this site */}
                <img
                  src={m.url}
                  srcSet={mediaSrcSet(m)}
                  sizes={`${String(thumbWidth(m))}px`}
                  alt=""
                  width={thumbWidth(m)}
                  height={64}
                  loading="lazy"
                  decoding="async"
                  className="h-16 w-auto rounded-lg bg-slate-100 object-cover"
                />
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Audio and video demos with the browser's own players; nothing loads until the visitor presses play (audio). */
export function MediaDemos({ audio, video, productName }: { audio: MediaView[]; video: MediaView[]; productName: string }) {
  if (audio.length === 0 && video.length === 0) return null;
  return (
    <ul className="mt-4 grid gap-4">
      {video.map((m, i) => (
        <li key={m.id}>
          <figure>
            <video controls preload="metadata" playsInline className="aspect-video w-full rounded-xl border border-slate-200 bg-black">
              <source src={m.url} type={m.content_type} />
              <a href={m.url}>Download the video</a>
            </video>
            <figcaption className="mt-2 text-sm text-slate-700">
              <span className="font-medium text-slate-900">{m.caption || `${productName}: video ${String(i + 1)}`}</span>
              <span className="text-slate-600"> · {mb(m.size)}</span>
            </figcaption>
          </figure>
        </li>
      ))}
      {audio.map((m, i) => {
        const title = m.caption || `${productName}: audio demo ${String(i + 1)}`;
        const length = seconds(m.duration_ms);
        return (
          <li key={m.id} className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
            <figure>
              <figcaption className="text-sm font-medium text-slate-900">
                {title}
                {length ? <span className="font-normal text-slate-600"> · {length}</span> : null}
              </figcaption>
              <audio controls preload="none" aria-label={title} className="mt-3 h-10 w-full" src={m.url}>
                <a href={m.url}>Download the audio demo</a>
              </audio>
            </figure>
          </li>
        );
      })}
    </ul>
  );
}
