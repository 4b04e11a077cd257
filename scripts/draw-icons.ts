/**
 * Draws the app's PNG icons from the SVGs in public/, for the web app manifest (browsers want
 * 192 and 512 px PNGs to offer installing, and a maskable one that fills their icon shapes) and
 * the notification badge (a white shape on transparent, which Android tints).
 * Run again only to change the art: `bun scripts/draw-icons.ts`.
 */
import sharp from "sharp";
import { join } from "node:path";

const pub = join(import.meta.dir, "../public");
const badge = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96"><circle cx="48" cy="48" r="32" fill="none" stroke="#fff" stroke-width="12"/><circle cx="48" cy="48" r="8" fill="#fff"/></svg>`;

const drawings: [source: string | Buffer, size: number, out: string][] = [
  [join(pub, "icon.svg"), 192, "icon-192.png"],
  [join(pub, "icon.svg"), 512, "icon-512.png"],
  [join(pub, "icon-maskable.svg"), 512, "icon-maskable-512.png"],
  [Buffer.from(badge), 96, "badge-96.png"],
];
for (const [source, size, out] of drawings) {
  await sharp(source, { density: 300 }).resize(size, size).png({ compressionLevel: 9 }).toFile(join(pub, out));
  console.log(`public/${out}`);
}
