import { constants, deflateRawSync } from "node:zlib";
import { pageBytes } from "../html/fragments";
import { RecentlyUsed } from "../../shared/memo";
import { FINAL_BLOCK, GZIP_HEADER, scratchOf, writeStoredHeader } from "./gzip-frame";
import { crc32Shift, crcMultiply } from "./crc32";

/**
 * A page asked for again, kept compressed for everyone who gets the same page but for their
 * token (the CSRF token of their session), decision 0058. A crowd's pages split in two: a long
 * tail asked once in a while, each of which is best compressed whole at the fast level when it is
 * asked (responses.ts), and a few hundred asked over and over by many people, which are
 * compressed once. Such a page is kept as its gzip body with a placeholder where each copy of the
 * token goes, each copy in a stored block of its own; an answer copies it, writes the visitor's
 * token over each placeholder, and works the CRC-32 out from where they are. The page with the
 * token replaced by the placeholder is the key, so what is anyone's own but the token (a name, a
 * badge, a toast) is in the key and never handed to someone else.
 *
 * A page is kept the third time it is asked for within about as many pages as are kept
 * (`timesAsked`): keeping one costs about five times what compressing it once does, and a page
 * of the long tail is rarely asked for again before it would be let go.
 */
interface PageShape {
  readonly bytes: Uint8Array;
  /** Byte offsets of each copy of the placeholder in `bytes`. */
  readonly holes: readonly number[];
  /** The CRC-32 of the page with the placeholder, and what a token changes of it (`tokenCrcChange`). */
  readonly crc: number;
  readonly afterHoles: number;
  /** The level it was compressed at, and the answers it made since. */
  readonly level: number;
  hits: number;
}

const PLACEHOLDER_CHAR = "\u0001";
const PLACEHOLDER_BYTE = 1;
/** Tokens the placeholder can stand for: one byte a character. */
const ASCII = /^[\x20-\x7e]+$/;
const SHAPES_MAX_BYTES = 12 * 1024 * 1024;
const SHAPE_MAX_BODY = 256 * 1024;
const shapes = new RecentlyUsed<string, PageShape>(SHAPES_MAX_BYTES);
const placeholders = new Map<number, { text: string; zerosCrc: number }>();

/**
 * How often each page was asked for lately (by its key), in two generations of `ASKED_MAX` pages:
 * about as many pages as `shapes` holds, so a page asked `KEEP_AFTER` times within them is one
 * likely to be asked again before it would be let go.
 */
const ASKED_MAX = 1024;
const KEEP_AFTER = 3;
let asked = new Map<string, number>();
let askedBefore = new Map<string, number>();
function timesAsked(key: string): number {
  const times = (asked.get(key) ?? askedBefore.get(key) ?? 0) + 1;
  asked.set(key, times);
  if (asked.size >= ASKED_MAX) {
    askedBefore = asked;
    asked = new Map();
  }
  return times;
}

/**
 * A page's key: the SHA-256 of the page with the placeholder and of the token's length (a page
 * whose token is only in kept parts' slots would otherwise read the same for tokens of every
 * length). No two pages can be found with the same digest, so a page kept is only ever another's
 * when it is the same page; and the store holds the 44 characters of a digest per page rather
 * than the page's text, which took more room than its compressed bytes.
 */
function keyOf(text: string, tokenLength: number | null): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(tokenLength === null ? "-\u0000" : `${tokenLength}\u0000`);
  hasher.update(text);
  return hasher.digest("base64");
}

/**
 * A page is kept compressed at the fast level first (a fifth of the time of zlib's default,
 * for a quarter more bytes); one that then makes `REFINE_AFTER` answers is compressed again at
 * zlib's default level, for the pages most people get.
 */
const FIRST_LEVEL = 1;
const KEPT_LEVEL = 6;
const REFINE_AFTER = 32;
/** DEFLATE looks back at most 32 KB. */
const WINDOW = 32 * 1024;

/**
 * The kept gzip body of this page with the visitor's token in it, written into a buffer the next
 * call overwrites; null when the page is not kept (asked for the first time, or one the
 * placeholder cannot stand in: a token that is not ASCII, a page with the placeholder's character).
 */
export function keptGzip(html: string, csrf: string | null): Uint8Array<ArrayBuffer> | null {
  const token = csrf ?? "";
  if (html.includes(PLACEHOLDER_CHAR) || (token !== "" && (token.length < 16 || !ASCII.test(token)))) return null;
  let placeholder = placeholders.get(token.length);
  if (!placeholder) placeholders.set(token.length, (placeholder = { text: PLACEHOLDER_CHAR.repeat(token.length), zerosCrc: Bun.hash.crc32(new Uint8Array(token.length)) }));
  const text = token === "" ? html : html.replaceAll(token, placeholder.text);
  const key = keyOf(text, csrf === null ? null : token.length);
  let shape = shapes.get(key);
  if (!shape || (shape.level < KEPT_LEVEL && ++shape.hits >= REFINE_AFTER)) {
    if (!shape && timesAsked(key) < KEEP_AFTER) return null;
    const made = shapeOf(text, csrf === null ? null : placeholder.text, shape ? KEPT_LEVEL : FIRST_LEVEL);
    if (!made) return null;
    shapes.set(key, (shape = made), key.length * 2 + made.bytes.length);
  }
  const length = shape.bytes.length;
  const out = scratchOf(length);
  out.set(shape.bytes);
  let crc = shape.crc;
  if (shape.holes.length > 0) {
    const tokenBytes = encoder.encode(token);
    for (const hole of shape.holes) out.set(tokenBytes, hole);
    crc = (crc ^ tokenCrcChange(shape, tokenBytes, placeholder.zerosCrc)) >>> 0;
  }
  out[length - 8] = crc & 0xff;
  out[length - 7] = (crc >>> 8) & 0xff;
  out[length - 6] = (crc >>> 16) & 0xff;
  out[length - 5] = crc >>> 24;
  return out.subarray(0, length);
}

/**
 * The page with the placeholder, compressed: the text between copies of the placeholder in pieces
 * that each end on a byte boundary (a sync flush, no final block), each compressed with the 32 KB
 * before it as its dictionary so it matches against the whole page as one stream would; each copy
 * in a stored block. No match can reach into a placeholder: its character is in no other piece.
 */
function shapeOf(text: string, placeholder: string | null, level: number): PageShape | null {
  const plain = pageBytes(text, placeholder);
  if (plain.length > SHAPE_MAX_BODY) return null;
  const width = placeholder?.length ?? 0;
  const holesInPlain: number[] = [];
  if (width > 0) for (let at = plain.indexOf(PLACEHOLDER_BYTE); at >= 0; at = plain.indexOf(PLACEHOLDER_BYTE, at + width)) holesInPlain.push(at);
  // The placeholder's byte anywhere but in whole placeholders (a kept part's text): not kept.
  let placeholderBytes = 0;
  for (let at = plain.indexOf(PLACEHOLDER_BYTE); at >= 0; at = plain.indexOf(PLACEHOLDER_BYTE, at + 1)) placeholderBytes++;
  if (placeholderBytes !== holesInPlain.length * width || holesInPlain.some((at) => plain.subarray(at, at + width).some((byte) => byte !== PLACEHOLDER_BYTE))) return null;
  const pieces: Uint8Array[] = [GZIP_HEADER];
  let size = GZIP_HEADER.length;
  const holes: number[] = [];
  const add = (bytes: Uint8Array) => {
    pieces.push(bytes);
    size += bytes.length;
  };
  let from = 0;
  for (const at of [...holesInPlain, plain.length]) {
    if (at > from) {
      const dictionary = from > 0 ? plain.subarray(Math.max(0, from - WINDOW), from) : undefined;
      add(deflateRawSync(plain.subarray(from, at), { level, finishFlush: constants.Z_SYNC_FLUSH, ...(dictionary ? { dictionary } : {}) }));
    }
    if (at === plain.length) break;
    const stored = new Uint8Array(5 + width);
    writeStoredHeader(stored, 0, width);
    stored.set(plain.subarray(at, at + width), 5);
    holes.push(size + 5);
    add(stored);
    from = at + width;
  }
  add(FINAL_BLOCK);
  const trailer = new Uint8Array(8);
  const crc = Bun.hash.crc32(plain) >>> 0;
  new DataView(trailer.buffer).setUint32(0, crc, true);
  new DataView(trailer.buffer).setUint32(4, plain.length >>> 0, true);
  add(trailer);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.length;
  }
  // The move past the bytes after each copy, all copies summed (`tokenCrcChange`).
  let afterHoles = 0;
  for (const hole of holesInPlain) afterHoles ^= crc32Shift(plain.length - hole - width);
  return { bytes, holes, crc, afterHoles: afterHoles >>> 0, level, hits: 0 };
}

/**
 * CRC-32 is linear: changing bytes of a message of the same length changes its CRC by the CRC
 * (without its start and end values) of the change alone, moved past the bytes after it. A token
 * over every placeholder changes each the same way, so the page's CRC changes by that CRC moved by
 * the sum (XOR) of the moves after each copy (`afterHoles`), one multiplication whatever the copies.
 */
function tokenCrcChange(shape: PageShape, token: Uint8Array, zerosCrc: number): number {
  const change = new Uint8Array(token.length);
  for (let i = 0; i < token.length; i++) change[i] = token[i]! ^ PLACEHOLDER_BYTE;
  return crcMultiply(shape.afterHoles, (Bun.hash.crc32(change) ^ zerosCrc) >>> 0);
}

const encoder = new TextEncoder();
