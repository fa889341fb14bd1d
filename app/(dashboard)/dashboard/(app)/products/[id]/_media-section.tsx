import { MEDIA_RULES, COVER_RULE, MEDIA_QUOTA_BYTES, IMAGE_TYPES, AUDIO_TYPES, VIDEO_TYPES } from "@/lib/media/limits";
import { sellerProductMedia } from "@/lib/media/manage";
import type { MediaView } from "@/lib/media/schemas";
import { formatBytes } from "@/lib/format";
import { MediaUpload, type MediaKindChoice } from "@/components/dashboard/media-upload";
import { MEDIA_NOTICES } from "@/components/dashboard/media-notices";
import { buttonSecondary, card, inputBase } from "@/components/ui/styles";
import { deleteMediaAction, moveMediaAction, saveMediaTextAction } from "./media-actions";

const KINDS: MediaKindChoice[] = [
  { value: "cover", label: "Cover", accept: IMAGE_TYPES.join(","), maxBytes: MEDIA_RULES.cover.maxBytes, needsAlt: true },
  { value: "image", label: "Screenshot", accept: IMAGE_TYPES.join(","), maxBytes: MEDIA_RULES.image.maxBytes, needsAlt: true },
  { value: "audio", label: "Audio demo", accept: AUDIO_TYPES.join(","), maxBytes: MEDIA_RULES.audio.maxBytes, needsAlt: false },
  { value: "video", label: "Video demo", accept: VIDEO_TYPES.join(","), maxBytes: MEDIA_RULES.video.maxBytes, needsAlt: false },
];
const LABEL: Record<string, string> = { cover: "Cover", image: "Screenshot", audio: "Audio demo", video: "Video demo" };

function Item({ productId, item, first, last }: { productId: string; item: MediaView; first: boolean; last: boolean }) {
  const isImage = item.kind === "cover" || item.kind === "image";
  const small = "min-h-6 px-3 py-1.5 text-sm";
  return (
    <li className="grid gap-3 py-4 sm:grid-cols-[8rem_minmax(0,1fr)]">
      {isImage ? (
        // eslint-disable-next-line @next/next/no-img-element -- the seller's own upload
        <img
          src={item.url}
          alt=""
          width={item.width ?? undefined}
          height={item.height ?? undefined}
          loading="lazy"
          className="aspect-[16/10] w-32 rounded-lg border border-slate-200 bg-slate-100 object-cover"
        />
      ) : (
        <p className="text-sm text-slate-600">
          {LABEL[item.kind]} · {formatBytes(item.size)}
        </p>
      )}
      <div className="min-w-0 space-y-2">
        <p className="text-sm font-medium text-slate-900">
          {LABEL[item.kind]}
          {item.width && item.height ? (
            <span className="font-normal text-slate-600"> · {`${String(item.width)} × ${String(item.height)}`}</span>
          ) : null}
        </p>
        <form action={saveMediaTextAction.bind(null, productId, item.id)} className="grid gap-2 sm:grid-cols-2">
          <label className="text-sm text-slate-800">
            Alt text{isImage ? " (required)" : ""}
            <input name="alt" defaultValue={item.alt} maxLength={300} required={isImage} className={`${inputBase} mt-1`} />
          </label>
          <label className="text-sm text-slate-800">
            Caption
            <input name="caption" defaultValue={item.caption} maxLength={200} className={`${inputBase} mt-1`} />
          </label>
          <div className="flex flex-wrap gap-2 sm:col-span-2">
            <button type="submit" className={`${buttonSecondary} ${small}`}>
              Save text
            </button>
          </div>
        </form>
        <div className="flex flex-wrap gap-2">
          {item.kind !== "cover" ? (
            <>
              <form action={moveMediaAction.bind(null, productId, item.id, "up")}>
                <button type="submit" disabled={first} className={`${buttonSecondary} ${small}`}>
                  Move earlier
                </button>
              </form>
              <form action={moveMediaAction.bind(null, productId, item.id, "down")}>
                <button type="submit" disabled={last} className={`${buttonSecondary} ${small}`}>
                  Move later
                </button>
              </form>
            </>
          ) : null}
          <form action={deleteMediaAction.bind(null, productId, item.id)}>
            <button type="submit" className={`${buttonSecondary} ${small} text-red-700`}>
              Delete<span className="sr-only"> this {LABEL[item.kind]?.toLowerCase()}</span>
            </button>
          </form>
        </div>
      </div>
    </li>
  );
}

/**
 * The product page's Media section: the cover, screenshots and demos the product page shows, each with its alt text
 * and caption, order and deletion (server actions), and the upload form.
 */
export async function MediaSection({ developerId, productId, notice }: { developerId: string; productId: string; notice: string | undefined }) {
  const media = await sellerProductMedia(developerId, productId);
  const said = notice ? MEDIA_NOTICES[notice] : undefined;
  return (
    <section id="media" aria-labelledby="media-heading" className={`${card} mt-8 scroll-mt-6 p-6`}>
      <h2 id="media-heading" className="text-base font-semibold text-slate-900">
        Media
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        A wide cover ({COVER_RULE}), screenshots, and audio or video demos that play on the product page. Upload the files here; addresses of other
        sites are not taken. Images need alt text. All your products&apos; media may take {formatBytes(MEDIA_QUOTA_BYTES)}.
      </p>
      {said ? (
        <p role="status" className={`mt-3 text-sm font-medium ${said.tone === "error" ? "text-red-700" : "text-emerald-800"}`}>
          {said.text}
        </p>
      ) : null}
      {media.length > 0 ? (
        <ul className="mt-2 divide-y divide-slate-100">
          {media.map((item) => {
            const ofKind = media.filter((m) => m.kind === item.kind);
            return <Item key={item.id} productId={productId} item={item} first={ofKind[0]?.id === item.id} last={ofKind.at(-1)?.id === item.id} />;
          })}
        </ul>
      ) : (
        <p className="mt-3 text-sm text-slate-600">No media yet: the store shows the icon.</p>
      )}
      <MediaUpload productId={productId} kinds={KINDS} />
    </section>
  );
}
