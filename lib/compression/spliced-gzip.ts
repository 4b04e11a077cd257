import { constants, deflateRawSync } from "node:zlib";
import { eachPieceText, type Kept } from "../html/fragments";
import { RecentlyUsed } from "../../shared/memo";
import { crc32Combine, crc32Shift, crcMultiply } from "./crc32";
import { DYNAMIC_GZIP_LEVEL } from "./encoding";

/**
 * A page made of kept parts, gzipped without compressing the kept parts again (decision 0040).
 * A gzip body is one DEFLATE stream, and a stream may be cut into pieces each ending on a byte
 * boundary (a sync flush) with no final block: such pieces, compressed on their own, follow one
 * another in one stream. So each kept piece is compressed when a page first sends it (fast, then
 * at zlib's default level once it is sent again: `deflatedOf`); each answer sends its own
 * text as it is (a few hundred bytes: the person's name, token and badge), joins the pieces, and
 * ends the stream with an empty final block and the CRC-32 and length of the whole page. A crowd
 * of different people asking for the same pages then costs no compression at all.
 */
interface DeflatedPiece {
  /** The piece compressed on its own, ending on a byte boundary. */
  readonly bytes: Uint8Array;
  /** The CRC-32 and length of the piece's own bytes, and the operator that moves a CRC past them (`crc32Shift`). */
  readonly crc: number;
  readonly length: number;
  readonly shift: number;
}
/** Each part's compressed pieces, or the answer that first sent it (`deflatedOf`). */
const deflatedPieces = new WeakMap<Kept, readonly (DeflatedPiece | null)[] | number>();
/** Counts the answers spliced, so that a part sent twice in one answer is not taken for one sent again. */
let answers = 0;
const GZIP_HEADER = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty fixed-Huffman block marked final: the stream's end after pieces that end on a byte boundary. */
const FINAL_BLOCK = new Uint8Array([0x03, 0x00]);
/**
 * Own text shorter than this goes as it is (a stored block, 5 bytes of framing): a compressor
 * made for a few hundred bytes costs more time than the page's whole splice (it allocates its
 * window each time), for some 70 bytes saved on a browse page.
 */
const STORE_BELOW = 2048;

/**
 * A kept part's pieces compressed at zlib's default level, from the second answer that sends the
 * part on: the first sends its bytes with the answer's own text, compressed with it at the fast
 * level (a part of one page of the long tail may never be sent again, and one compression of the
 * whole answer costs less than one per piece); a part sent in two answers is one that is kept, and
 * each answer after sends its smaller bytes as they are (level 9 made the browse page no smaller).
 * The parts inside a part (a browse page's cards) are parts of their own. Null: not yet.
 */
function deflatedOf(part: Kept): readonly (DeflatedPiece | null)[] | null {
  const known = deflatedPieces.get(part);
  if (known === undefined) {
    deflatedPieces.set(part, answers);
    return null;
  }
  if (typeof known !== "number") return known;
  if (known === answers) return null;
  const pieces = part.pieces.map((piece) =>
    piece instanceof Uint8Array
      ? {
          bytes: deflateRawSync(piece, { level: KEPT_LEVEL, finishFlush: constants.Z_SYNC_FLUSH }),
          crc: Bun.hash.crc32(piece),
          length: piece.length,
          shift: crc32Shift(piece.length),
        }
      : null,
  );
  deflatedPieces.set(part, pieces);
  return pieces;
}
const KEPT_LEVEL = 6;

/** The spliced answer as bytes of its own (`spliceGzip` writes into a buffer the next call overwrites). */
export const splicedGzip = (html: string, csrf: string | null): Uint8Array<ArrayBuffer> => spliceGzip(html, csrf).slice();

/**
 * Where answers are written before the answer copies them: allocating a buffer the size of a page
 * for every request cost more than the whole splice. Up to `SCRATCH_MAX`; larger answers get
 * their own buffer.
 */
let scratch = new Uint8Array(64 * 1024);
const SCRATCH_MAX = 1024 * 1024;
function bufferOf(size: number): Uint8Array<ArrayBuffer> {
  if (size <= scratch.length) return scratch;
  if (size > SCRATCH_MAX) return new Uint8Array(size);
  scratch = new Uint8Array(Math.min(SCRATCH_MAX, Math.max(size, scratch.length * 2)));
  return scratch;
}

/**
 * Where the visitor's token went in a spliced answer (`spliceGzip` with a `Shape`): the byte
 * offsets of each copy of it (each in a stored block of its own), and the length of each run of
 * the page's bytes around them (one more run than offsets).
 */
interface Shape {
  readonly holes: number[];
  readonly runs: number[];
}

/**
 * The spliced answer, written into the scratch buffer: a view valid until the next call. With a
 * `shape`, `csrf` is a placeholder and `shape` is told where each copy of it went (`shapedGzip`).
 */
function spliceGzip(html: string, csrf: string | null, shape?: Shape): Uint8Array<ArrayBuffer> {
  // The answer is written once, into one buffer: what every kept piece takes, plus room for the
  // own text (at most 3 bytes of UTF-8 per UTF-16 unit, and 5 bytes of framing per run).
  answers++;
  const segments: (string | Uint8Array | DeflatedPiece)[] = [];
  let room = GZIP_HEADER.length + FINAL_BLOCK.length + 8;
  eachPieceText(
    html,
    csrf,
    (text) => {
      segments.push(text);
      room += 5 + text.length * 3;
    },
    (part, i) => {
      const bytes = part.pieces[i] as Uint8Array;
      if (bytes.length === 0) return;
      const piece = deflatedOf(part)?.[i];
      if (piece) {
        segments.push(piece);
        room += piece.bytes.length;
      } else {
        segments.push(bytes);
        room += 5 + bytes.length;
      }
    },
  );
  let out = bufferOf(room);
  out.set(GZIP_HEADER);
  let at = GZIP_HEADER.length;
  let crc = 0;
  let size = 0;
  // With a shape: the length of the page's bytes since the last copy of the token.
  let runLength = 0;
  // A run of own text is written after room for a stored block's 5-byte header, filled in when
  // the run ends: under STORE_BELOW bytes it goes as it is (one stored block holds up to 65,535).
  let ownStart = -1;
  /** Room for `more` bytes at `at` (the room counted above suffices unless compressing own text made it longer). */
  const ensure = (more: number) => {
    if (at + more <= out.length) return;
    const written = out.subarray(0, at);
    const bigger = new Uint8Array(2 * (at + more));
    bigger.set(written);
    out = bigger;
  };
  const endOwn = () => {
    if (ownStart < 0) return;
    const bytes = out.subarray(ownStart + 5, at);
    crc = Bun.hash.crc32(bytes, crc);
    size += bytes.length;
    runLength += bytes.length;
    if (bytes.length < STORE_BELOW) writeStoredHeader(out, ownStart, bytes.length);
    else {
      // Much own text: compressed at the fast level (it is this answer's alone), written where it began.
      const deflated = deflateRawSync(bytes, { level: DYNAMIC_GZIP_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
      at = ownStart;
      ensure(deflated.length);
      out.set(deflated, at);
      at += deflated.length;
    }
    ownStart = -1;
  };
  const writeOwn = (text: string | Uint8Array) => {
    ensure(5 + text.length * 3);
    if (ownStart < 0) {
      ownStart = at;
      at += 5;
    }
    if (typeof text === "string") at += encoder.encodeInto(text, out.subarray(at)).written;
    else {
      out.set(text, at);
      at += text.length;
    }
  };
  /** With a shape: the placeholder in a stored block of its own, where each answer writes its token over it. */
  const writeHole = (placeholder: string) => {
    endOwn();
    ensure(5 + placeholder.length);
    writeStoredHeader(out, at, placeholder.length);
    at += 5;
    shape!.runs.push(runLength);
    shape!.holes.push(at);
    const written = encoder.encodeInto(placeholder, out.subarray(at)).written;
    crc = Bun.hash.crc32(out.subarray(at, at + written), crc);
    size += written;
    at += written;
    runLength = 0;
  };
  for (const segment of segments) {
    if (segment instanceof Uint8Array) writeOwn(segment);
    else if (typeof segment === "string") {
      if (shape && csrf && segment.includes(csrf)) {
        const pieces = segment.split(csrf);
        for (let i = 0; i < pieces.length; i++) {
          if (i > 0) writeHole(csrf);
          if (pieces[i]) writeOwn(pieces[i]!);
        }
      } else writeOwn(segment);
    } else {
      endOwn();
      crc = crc32Combine(crc, segment.crc, segment.shift);
      size += segment.length;
      runLength += segment.length;
      ensure(segment.bytes.length);
      out.set(segment.bytes, at);
      at += segment.bytes.length;
    }
  }
  endOwn();
  if (shape) shape.runs.push(runLength);
  ensure(FINAL_BLOCK.length + 8);
  out.set(FINAL_BLOCK, at);
  at += FINAL_BLOCK.length;
  const trailer = new DataView(out.buffer, out.byteOffset + at, 8);
  trailer.setUint32(0, crc >>> 0, true);
  trailer.setUint32(4, size >>> 0, true);
  return out.subarray(0, at + 8);
}

/**
 * A page's spliced answer, made once for every visitor who gets the same page but for their
 * token (the CSRF token of their session): a crowd asks for a few hundred pages, each for many
 * people. The answer is kept with a placeholder where each copy of the token goes (the page
 * itself with the token replaced is the key); an answer copies it, writes the visitor's token
 * over each placeholder (each in a stored block of its own, whatever the own text around it) and
 * works the CRC-32 out from the runs around them. What is anyone's own but the token (a name, a
 * badge, a toast) is in the key, so it is never handed to someone else. Anything this cannot place
 * (a token that is not ASCII, a page with the placeholder's character in it) is spliced as before.
 */
interface PageShape {
  readonly bytes: Uint8Array;
  readonly holes: readonly number[];
  /** The CRC-32 of the page with the placeholder, and what a token changes of it (`tokenCrcChange`). */
  readonly crc: number;
  readonly afterHoles: number;
}
const PLACEHOLDER_CHAR = "\u0001";
const PLACEHOLDER_BYTE = 1;
/** Tokens the placeholder can stand for: one byte a character. */
const ASCII = /^[\x20-\x7e]+$/;
const SHAPES_MAX_BYTES = 4 * 1024 * 1024;
const SHAPE_MAX_BODY = 256 * 1024;
const shapes = new RecentlyUsed<string, PageShape>(SHAPES_MAX_BYTES);
const placeholders = new Map<number, { text: string; zerosCrc: number }>();

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

export function shapedGzip(html: string, csrf: string | null): Uint8Array<ArrayBuffer> {
  const token = csrf ?? "";
  if (html.includes(PLACEHOLDER_CHAR) || (token !== "" && (token.length < 16 || !ASCII.test(token)))) return spliceGzip(html, csrf);
  let placeholder = placeholders.get(token.length);
  if (!placeholder) placeholders.set(token.length, (placeholder = { text: PLACEHOLDER_CHAR.repeat(token.length), zerosCrc: Bun.hash.crc32(new Uint8Array(token.length)) }));
  const key = token === "" ? html : html.replaceAll(token, placeholder.text);
  let shape = shapes.get(key);
  if (!shape) {
    const made: Shape = { holes: [], runs: [] };
    const bytes = spliceGzip(key, token === "" ? null : placeholder.text, made);
    if (bytes.length > SHAPE_MAX_BODY) return spliceGzip(html, csrf);
    // The move past the bytes after each copy: the product of the moves of the runs and copies after it.
    const tokenShift = crc32Shift(token.length);
    let afterHoles = 0;
    let after = 0x80000000;
    for (let i = made.holes.length - 1; i >= 0; i--) {
      after = crcMultiply(after, crc32Shift(made.runs[i + 1]!));
      afterHoles ^= after;
      after = crcMultiply(after, tokenShift);
    }
    const trailer = bytes.length - 8;
    const crc = (bytes[trailer]! | (bytes[trailer + 1]! << 8) | (bytes[trailer + 2]! << 16) | (bytes[trailer + 3]! << 24)) >>> 0;
    shape = { bytes: bytes.slice(), holes: made.holes, crc, afterHoles: afterHoles >>> 0 };
    shapes.set(key, shape, key.length * 2 + shape.bytes.length);
  }
  const length = shape.bytes.length;
  const out = bufferOf(length);
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

const encoder = new TextEncoder();

/** The header of a DEFLATE stored block (not final) of `length` bytes, written at `at`. */
function writeStoredHeader(out: Uint8Array, at: number, length: number) {
  out[at] = 0;
  out[at + 1] = length & 0xff;
  out[at + 2] = length >> 8;
  out[at + 3] = ~length & 0xff;
  out[at + 4] = (~length >> 8) & 0xff;
}
