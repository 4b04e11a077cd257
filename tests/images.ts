import { loadSharp } from "../src/uploads/sharp";

/** Real images made on the spot for upload tests. */
export async function makeJpeg(opts: { width?: number; height?: number; gps?: boolean; orientation?: number } = {}) {
  const sharp = await loadSharp();
  let img = sharp({ create: { width: opts.width ?? 800, height: opts.height ?? 600, channels: 3, background: "#3b82f6" } }).jpeg();
  if (opts.gps) {
    img = img.withExif({
      IFD0: { Make: "TestCam" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 24/1", GPSLongitudeRef: "E", GPSLongitude: "2/1 21/1 3/1" },
    });
  }
  if (opts.orientation) img = img.withMetadata({ orientation: opts.orientation });
  return new Uint8Array(await img.toBuffer()) as Uint8Array<ArrayBuffer>;
}

export async function makePng(width = 300, height = 300) {
  const sharp = await loadSharp();
  return new Uint8Array(await sharp({ create: { width, height, channels: 4, background: "#e8553d" } }).png().toBuffer()) as Uint8Array<ArrayBuffer>;
}
