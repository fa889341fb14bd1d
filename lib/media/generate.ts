import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";

/**
 * Media made in code, deterministically (the demo catalogue's cover art and audio demos): the same input gives the
 * same bytes on every machine, so the seed stores the same objects and a test can compare them. No randomness: the
 * shapes and colours come from a hash of the input.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An 8-bit RGB PNG of `rgb` (width × height × 3 bytes), each row with the Sub filter (gradients compress well). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const stride = width * 3;
  const raw = new Uint8Array((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const out = y * (stride + 1) + 1;
    const row = y * stride;
    raw[out - 1] = 1;
    raw.set(rgb.subarray(row, row + 3), out);
    for (let x = 3; x < stride; x++) raw[out + x] = ((rgb[row + x] ?? 0) - (rgb[row + x - 3] ?? 0)) & 0xff;
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 6 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const at = (list: ArrayLike<number>, i: number): number => list[i] ?? 0;

/** HSL (h in turns, s and l 0–1) to RGB bytes. */
function hsl(h: number, s: number, l: number): [number, number, number] {
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    const a = s * Math.min(l, 1 - l);
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

export const COVER_WIDTH = 1200;
export const COVER_HEIGHT = 630;

/**
 * Cover art for `seed` (a product id): a diagonal gradient between two colours, soft rings and a band of bars, all
 * chosen by the seed's SHA-256; 1200 × 630 pixels (a cover's shape, lib/media/limits.ts).
 */
export function coverArt(seed: string, width = COVER_WIDTH, height = COVER_HEIGHT): Buffer {
  const h = createHash("sha256").update(`cover:${seed}`).digest();
  const byte = (i: number) => (h[i % h.length] ?? 0) / 255;
  const hue = byte(0);
  const from = hsl(hue, 0.55 + byte(1) * 0.3, 0.28 + byte(2) * 0.12);
  const to = hsl((hue + 0.12 + byte(3) * 0.3) % 1, 0.6, 0.5 + byte(4) * 0.15);
  const ring = hsl((hue + 0.5) % 1, 0.7, 0.7);
  const circles = Array.from({ length: 3 }, (_, i) => ({
    x: byte(5 + i * 3) * width,
    y: byte(6 + i * 3) * height,
    r: 80 + byte(7 + i * 3) * 220,
  }));
  const bars = 12 + Math.floor(byte(20) * 20);
  const barHeights = Array.from({ length: bars }, (_, i) => 0.15 + 0.6 * byte(21 + i));
  const rgb = new Uint8Array(width * height * 3);
  // The gradient: along x 60 % of the way from one colour to the other, along y 40 %; the first row is made once and
  // each further row is it shifted by the y part.
  const first = new Float32Array(width * 3);
  for (let x = 0; x < width; x++) for (let k = 0; k < 3; k++) first[x * 3 + k] = at(from, k) + (at(to, k) - at(from, k)) * (x / width) * 0.6;
  for (let y = 0; y < height; y++) {
    const shift = [0, 1, 2].map((k) => (at(to, k) - at(from, k)) * (y / height) * 0.4);
    const row = y * width * 3;
    for (let i = 0; i < width * 3; i++) rgb[row + i] = at(first, i) + at(shift, i % 3);
  }
  const blend = (x: number, y: number, c: readonly number[], a: number) => {
    const o = (y * width + x) * 3;
    for (let k = 0; k < 3; k++) rgb[o + k] = at(rgb, o + k) + (at(c, k) - at(rgb, o + k)) * a;
  };
  // Rings 12 px wide: per row, only the pixels near the circle.
  const halo = 6;
  for (const c of circles) {
    for (let y = Math.max(0, Math.floor(c.y - c.r - halo)); y < Math.min(height, Math.ceil(c.y + c.r + halo)); y++) {
      const dy = y - c.y;
      const outer = Math.sqrt(Math.max(0, (c.r + halo) ** 2 - dy * dy));
      const inner = Math.sqrt(Math.max(0, (c.r - halo) ** 2 - dy * dy));
      for (const [a, b] of [
        [c.x - outer, c.x - inner],
        [c.x + inner, c.x + outer],
      ] as const) {
        for (let x = Math.max(0, Math.floor(a)); x < Math.min(width, Math.ceil(b)); x++) {
          const d = Math.abs(Math.hypot(x - c.x, dy) - c.r);
          if (d < halo) blend(x, y, ring, 0.35 * (1 - d / halo));
        }
      }
    }
  }
  // A band of level bars, lighter than the ground.
  const band = { top: Math.round(height * 0.55), bottom: Math.round(height * 0.9), left: Math.round(width * 0.55), right: Math.round(width * 0.92) };
  const barWidth = (band.right - band.left) / bars;
  const white = [255, 255, 255];
  for (let i = 0; i < bars; i++) {
    const level = Math.round(band.bottom - (band.bottom - band.top) * (barHeights[i] ?? 0));
    const left = Math.round(band.left + i * barWidth);
    const right = Math.round(band.left + i * barWidth + barWidth * 0.6);
    for (let y = level; y < band.bottom; y++) for (let x = left; x < right; x++) blend(x, y, white, 0.55);
  }
  return encodePng(width, height, rgb);
}

const DEMO_SAMPLE_RATE = 22_050;

/** 16-bit mono PCM WAV of samples in −1…1. */
function encodeWav(samples: Float32Array, sampleRate = DEMO_SAMPLE_RATE): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), i * 2));
  const head = Buffer.alloc(44);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(36 + data.length, 4);
  head.write("WAVEfmt ", 8, "latin1");
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(1, 20); // PCM
  head.writeUInt16LE(1, 22); // mono
  head.writeUInt32LE(sampleRate, 24);
  head.writeUInt32LE(sampleRate * 2, 28);
  head.writeUInt16LE(2, 32);
  head.writeUInt16LE(16, 34);
  head.write("data", 36, "latin1");
  head.writeUInt32LE(data.length, 40);
  return Buffer.concat([head, data]);
}

/** The effects the demo clips let a listener compare, dry first, then processed. */
export type DemoEffect = "saturation" | "compression" | "reverb" | "delay";

/**
 * A short before/after demo: a plucked bass-and-chord figure with a kick, played dry for `seconds`, then again
 * through `effect`. Noise comes from a hash-seeded generator, so the clip is the same bytes every time.
 */
export function demoClip(seed: string, effect: DemoEffect, seconds = 2): Buffer {
  const rate = DEMO_SAMPLE_RATE;
  const n = Math.round(rate * seconds);
  let state = createHash("sha256").update(`audio:${seed}`).digest().readUInt32LE(0) || 1;
  const noise = () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return ((state >>> 0) / 0xffffffff) * 2 - 1;
  };
  const dry = new Float32Array(n);
  const beat = rate / 4; // four notes a second
  const notes = [110, 146.83, 164.81, 130.81];
  for (let i = 0; i < n; i++) {
    const step = Math.floor(i / beat);
    const t = (i % beat) / rate;
    const f = notes[step % notes.length] ?? 110;
    const env = Math.exp(-t * 9);
    // Loud and quiet notes in turn, so compression has something to even out.
    const accent = step % 2 === 0 ? 1 : 0.35;
    let s =
      accent * env * (0.5 * Math.sin(2 * Math.PI * f * t) + 0.25 * Math.sin(2 * Math.PI * f * 2 * t) + 0.12 * Math.sin(2 * Math.PI * f * 3 * t));
    if (step % 4 === 0) s += Math.exp(-t * 30) * Math.sin(2 * Math.PI * (60 + 90 * Math.exp(-t * 40)) * t) * 0.8;
    s += noise() * 0.02 * env;
    dry[i] = s * 0.6;
  }
  const wet = new Float32Array(n);
  if (effect === "saturation") {
    for (let i = 0; i < n; i++) wet[i] = Math.tanh((dry[i] ?? 0) * 3.5) * 0.55;
  } else if (effect === "compression") {
    let level = 0;
    for (let i = 0; i < n; i++) {
      const x = dry[i] ?? 0;
      level = Math.max(Math.abs(x), level * 0.9995);
      const gain = level > 0.12 ? Math.pow(0.12 / level, 0.75) : 1;
      wet[i] = x * gain * 2.6;
    }
  } else {
    const delays = effect === "reverb" ? [1557, 1617, 1491, 1422] : [Math.round(rate * 0.375)];
    const feedback = effect === "reverb" ? 0.78 : 0.45;
    const lines = delays.map((d) => new Float32Array(d));
    for (let i = 0; i < n; i++) {
      const x = dry[i] ?? 0;
      let sum = 0;
      lines.forEach((line, k) => {
        const at = i % (delays[k] ?? 1);
        const out = line[at] ?? 0;
        line[at] = x + out * feedback;
        sum += out;
      });
      wet[i] = x * 0.7 + (sum / lines.length) * 0.6;
    }
  }
  const gap = Math.round(rate * 0.25);
  const all = new Float32Array(n * 2 + gap);
  all.set(dry, 0);
  all.set(wet, n + gap);
  return encodeWav(all, rate);
}
