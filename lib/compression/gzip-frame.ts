/**
 * The framing a gzip answer made of separately compressed pieces needs (spliced-gzip.ts,
 * kept-pages.ts): pieces that each end on a byte boundary (a sync flush, no final block) follow
 * one another in one DEFLATE stream; the stream ends with an empty final block, then the CRC-32
 * and length of the whole text.
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
