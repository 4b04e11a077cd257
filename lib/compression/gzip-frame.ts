/**
 * The framing a gzip answer made of separately compressed pieces needs (spliced-gzip.ts,
 * kept-pages.ts): pieces that each end on a byte boundary (a sync flush, no final block) follow
 * one another in one DEFLATE stream; the stream ends with an empty final block, then the CRC-32
 * and length of the whole text. And the buffer such answers are written into.
 */

/** A gzip header: DEFLATE, no name, no time, unknown system. */
export const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/** An empty fixed-Huffman block marked final: the stream's end after pieces that end on a byte boundary. */
export const FINAL_BLOCK = new Uint8Array([0x03, 0x00]);

/** The header of a DEFLATE stored block (not final) of `length` bytes, written at `at`. */
export function writeStoredHeader(out: Uint8Array, at: number, length: number) {
  out[at] = 0;
  out[at + 1] = length & 0xff;
  out[at + 2] = length >> 8;
  out[at + 3] = ~length & 0xff;
  out[at + 4] = (~length >> 8) & 0xff;
}

/**
 * Where spliced and kept answers are written before the answer copies them (lib/compression/
 * responses.ts): allocating a buffer the size of a page for every request cost more than the
 * whole splice. The same buffer for both: an answer is copied before the next is written. Up to
 * `SCRATCH_MAX`; larger answers get their own buffer.
 */
let scratch = new Uint8Array(64 * 1024);
const SCRATCH_MAX = 1024 * 1024;
export function scratchOf(size: number): Uint8Array<ArrayBuffer> {
  if (size <= scratch.length) return scratch;
  if (size > SCRATCH_MAX) return new Uint8Array(size);
  scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
  return scratch;
}
