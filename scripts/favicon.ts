// `npx tsx scripts/favicon.ts`: rebuilds app/favicon.ico from app/icon.svg. Browsers, crawlers and feed readers
// ask for /favicon.ico whatever the page links; the file holds the same mark as PNG images at 16, 32 and 48 px,
// drawn by the system Chromium (the one the end-to-end tests use), so no image tool needs installing.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { chromium } from "@playwright/test";

const SIZES = [16, 32, 48] as const;
const executablePath = process.env.CHROMIUM_PATH ?? ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));

/** An ICO container of PNG images: a 6-byte header, one 16-byte entry per image, then the images. */
function ico(images: Array<{ size: number; png: Buffer }>): Buffer {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  let offset = 6 + 16 * images.length;
  const entries = images.map(({ size, png }) => {
    const entry = Buffer.alloc(16);
    entry.writeUInt8(size % 256, 0);
    entry.writeUInt8(size % 256, 1);
    entry.writeUInt8(0, 2);
    entry.writeUInt8(0, 3);
    entry.writeUInt16LE(1, 4);
    entry.writeUInt16LE(32, 6);
    entry.writeUInt32LE(png.length, 8);
    entry.writeUInt32LE(offset, 12);
    offset += png.length;
    return entry;
  });
  return Buffer.concat([header, ...entries, ...images.map((i) => i.png)]);
}

const svg = readFileSync("app/icon.svg", "utf8");
const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: ["--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage();
  const images = [];
  for (const size of SIZES) {
    await page.setViewportSize({ width: size, height: size });
    await page.setContent(`<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`);
    images.push({ size, png: await page.screenshot({ omitBackground: true }) });
  }
  writeFileSync("app/favicon.ico", ico(images));
  console.log(`app/favicon.ico: ${SIZES.join(", ")} px`);
} finally {
  await browser.close();
}
