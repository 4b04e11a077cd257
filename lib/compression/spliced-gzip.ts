import { constants, deflateRawSync } from "node:zlib";
import { eachPieceText, type Kept } from "../html/fragments";
import { FINAL_BLOCK, GZIP_HEADER, scratchOf, writeStoredHeader } from "./gzip-frame";
import { crc32Combine, crc32Shift } from "./crc32";
import { DYNAMIC_GZIP_LEVEL } from "./encoding";

/**
 * A page made of kept parts, gzipped without compressing the kept parts again (decision 0040).
 * A gzip body is one DEFLATE stream, and a stream may be cut into pieces each ending on a byte
 * boundary (a sync flush) with no final block: such pieces, compressed on their own, follow one
 * another in one stream. So each kept piece is compressed when a page first sends it (fast, then
 * at zlib's default level once it is sent again: `deflatedOf`); each answer sends its own
 * text as it is (a few hundred bytes: the person's name, token and badge), joins the pieces, and
 * ends the stream with an empty final block and the CRC-32 and length of the whole page.
 *
 * A page asked for once in a while is answered this way (the shared parts of every page, the
 * layout and a booking dialog, are compressed once); a page asked for again and again is kept
 * compressed whole instead (kept-pages.ts, decision 0058), smaller by a third.
 */
interface DeflatedPiece {
  /** The piece compressed on its own, ending on a byte boundary. */
  readonly bytes: Uint8Array;
  /** The CRC-32 and length of the piece's own bytes, and the operator that moves a CRC past them (`crc32Shift`). */
  readonly crc: number;
  readonly length: number;
  readonly shift: number;
}
/** Each part's compressed pieces, or how many answers sent it yet and the last (`deflatedOf`). */
const deflatedPieces = new WeakMap<Kept, readonly (DeflatedPiece | null)[] | { answer: number; count: number }>();
/** Counts the answers spliced, so that a part sent twice in one answer is not taken for one sent again. */
let answers = 0;
/**
 * Own text shorter than this goes as it is (a stored block, 5 bytes of framing): a compressor
 * made for a few hundred bytes costs more time than the page's whole splice (it allocates its
 * window each time), for some 70 bytes saved on a browse page.
 */
const STORE_BELOW = 2048;

/**
 * A kept part's pieces compressed at zlib's default level, from the third answer that sends the
 * part on: until then it goes with the answer's own text, compressed with it at the fast level (a
 * part of one page may never be sent again, and one compression of the whole answer costs less
 * than one per piece). A part sent in three answers is one that many pages share (the layout, a
 * booking dialog): each answer after sends its smaller bytes as they are (level 9 made the browse
 * page no smaller). A part of one page alone is rarely spliced that often: by its third answer the
 * page is kept whole (kept-pages.ts). The parts inside a part (a browse page's cards) are parts of
 * their own. Null: not yet.
 */
function deflatedOf(part: Kept): readonly (DeflatedPiece | null)[] | null {
  const known = deflatedPieces.get(part);
  if (known === undefined) {
    deflatedPieces.set(part, { answer: answers, count: 1 });
    return null;
  }
  if (!("count" in known)) return known;
  if (known.answer === answers) return null;
  if (++known.count < DEFLATE_AFTER) {
    known.answer = answers;
    return null;
  }
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
const DEFLATE_AFTER = 3;
const KEPT_LEVEL = 6;


/** The spliced answer, written into the scratch buffer: a view valid until the next call. */
export function splicedGzip(html: string, csrf: string | null): Uint8Array<ArrayBuffer> {
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
  let out = scratchOf(room);
  out.set(GZIP_HEADER);
  let at = GZIP_HEADER.length;
  let crc = 0;
  let size = 0;
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
  for (const segment of segments) {
    if (segment instanceof Uint8Array) writeOwn(segment);
    else if (typeof segment === "string") writeOwn(segment);
    else {
      endOwn();
      crc = crc32Combine(crc, segment.crc, segment.shift);
      size += segment.length;
      ensure(segment.bytes.length);
      out.set(segment.bytes, at);
      at += segment.bytes.length;
    }
  }
  endOwn();
  ensure(FINAL_BLOCK.length + 8);
  out.set(FINAL_BLOCK, at);
  at += FINAL_BLOCK.length;
  const trailer = new DataView(out.buffer, out.byteOffset + at, 8);
  trailer.setUint32(0, crc >>> 0, true);
  trailer.setUint32(4, size >>> 0, true);
  return out.subarray(0, at + 8);
}

const encoder = new TextEncoder();
