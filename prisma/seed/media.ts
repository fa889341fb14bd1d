import { createHash } from "node:crypto";
import { coverArt, COVER_HEIGHT, COVER_WIDTH, demoClip, type DemoEffect } from "../../lib/media/generate.ts";
import { MEDIA_KEY_PREFIX, type MediaRow } from "../../lib/media/read.ts";
import { sniffMedia } from "../../lib/media/sniff.ts";
import { objectStore } from "../../lib/storage/index.ts";

/** The demo plugins that get a before/after audio demo, and what the "after" half does. */
const AUDIO_DEMOS: Record<string, { effect: DemoEffect; caption: string }> = {
  "tape-warmth": { effect: "saturation", caption: "Bass and drums: dry, then through Tape Warmth" },
  "undertow-bus-compressor": { effect: "compression", caption: "Loud and quiet notes: dry, then compressed by Undertow" },
  "reef-reverb": { effect: "reverb", caption: "Plucked notes: dry, then in Reef's hall" },
};

/** A media row of the seed: the row the store reads, for a product, before the database gives it an id. */
type SeedMediaRow = Omit<MediaRow, "id"> & { productId: string };

async function store(bytes: Buffer, ext: string, contentType: string): Promise<string> {
  const key = `${MEDIA_KEY_PREFIX}${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}.${ext}`;
  const objects = objectStore();
  if (!(await objects.head(key))) await objects.put(key, bytes, { size: bytes.byteLength, contentType });
  return key;
}

/**
 * Makes and stores the demo catalogue's media: generated cover art for every product (lib/media/generate.ts, from its
 * id) and a short before/after audio demo for a few audio plugins. Returns the rows that describe them.
 */
export async function seedMediaFiles(products: Array<{ id: string; name: string }>): Promise<SeedMediaRow[]> {
  const rows: SeedMediaRow[] = [];
  for (const p of products) {
    const png = coverArt(p.id);
    rows.push({
      productId: p.id,
      kind: "cover",
      key: await store(png, "png", "image/png"),
      contentType: "image/png",
      size: png.byteLength,
      width: COVER_WIDTH,
      height: COVER_HEIGHT,
      durationMs: null,
      alt: `Cover art for ${p.name}: abstract rings and level bars on a colour gradient`,
      caption: "",
      position: 0,
    });
    const demo = AUDIO_DEMOS[p.id];
    if (demo) {
      const wav = demoClip(p.id, demo.effect);
      rows.push({
        productId: p.id,
        kind: "audio",
        key: await store(wav, "wav", "audio/wav"),
        contentType: "audio/wav",
        size: wav.byteLength,
        width: null,
        height: null,
        durationMs: sniffMedia("audio", wav).durationMs,
        alt: "",
        caption: demo.caption,
        position: 0,
      });
    }
  }
  return rows;
}
