/**
 * Rendered once, reused: parts of pages that are the same for everyone who sees them (a city
 * list, a category grid, a card, the install card in a language), kept as finished UTF-8 bytes
 * (decisions 0018 and 0027). A part kept here must be a function of its key alone: never of the
 * visitor (name, toast, theme), so the kept part is exactly what rendering again gives. The one
 * personal value a kept part may hold is the visitor's CSRF token, through `CSRF_SLOT`.
 *
 * In the page a kept part stands as a short marker (`<!--kept:<nonce>:<id>-->`); the answer
 * (`htmlResponse`, `pageBytes`) replaces each marker by the part's bytes. So a page's own string
 * stays a few kilobytes whatever it includes, and the same person's same page is recognised by
 * that short string alone (src/shell/render.ts). The nonce is made at start-up and never leaves
 * the server, and typed text is escaped, so no text can pass for a marker.
 */

/** Parts kept per cache at most; a full cache starts over (keys are few: cities, languages, categories). */
const MAX_KEPT = 500;

const NONCE = crypto.randomUUID().replaceAll("-", "");
const MARK_OPEN = `<!--kept:${NONCE}:`;
const MARK_CLOSE = "-->";

/**
 * Stands for the visitor's CSRF token in a kept part (a form's hidden `_csrf`): filled in with
 * each visitor's own token when the answer is made. Letters and digits only, so an attribute
 * value holds it unescaped.
 */
export const CSRF_SLOT = `csrfslot${NONCE}`;

/** A kept part: its text (for parts kept inside other parts) and its bytes, cut at each CSRF slot. */
export interface Kept {
  readonly id: number;
  readonly marker: string;
  readonly text: string;
  readonly pieces: readonly Uint8Array[];
  readonly size: number;
}

/** Where the parts are kept, by the name the caller gives them. */
export type KeptParts = Map<string, Kept>;

/**
 * Every kept part a marker may still name, in two generations: parts used since the last turn
 * over are in `current`; when it holds more than `GENERATION_BYTES`, it becomes `previous` and the
 * old `previous` is let go. A part is moved into `current` each time a page uses it, so a part a
 * page is being made with stays findable until twice that many bytes of other parts have been
 * kept in between, far more than all the parts of all pages.
 */
const GENERATION_BYTES = 8 * 1024 * 1024;
let current = new Map<number, Kept>();
let previous = new Map<number, Kept>();
let currentBytes = 0;
let nextId = 1;

function hold(part: Kept) {
  if (current.has(part.id)) return;
  previous.delete(part.id);
  current.set(part.id, part);
  currentBytes += part.size;
  if (currentBytes > GENERATION_BYTES) {
    previous = current;
    current = new Map();
    currentBytes = 0;
  }
}

function held(id: number): Kept {
  const part = current.get(id) ?? previous.get(id);
  if (!part) throw new Error(`kept part ${id} is no longer held`);
  return part;
}

const encoder = new TextEncoder();

/** Keeps finished HTML as a part; markers of other parts inside it are replaced by their text. */
export function keep(html: JSX.Element): Kept {
  if (typeof html !== "string") throw new Error("a kept part must render synchronously");
  const text = expandText(html);
  const pieces = text.split(CSRF_SLOT).map((piece) => encoder.encode(piece));
  const id = nextId++;
  const part: Kept = { id, marker: `${MARK_OPEN}${id}${MARK_CLOSE}`, text, pieces, size: text.length * 2 + pieces.reduce((n, p) => n + p.length, 0) };
  hold(part);
  return part;
}

/** The part kept under `key`, rendered by `render` the first time; in the page, its marker. */
export function remember(parts: KeptParts, key: string, render: () => JSX.Element): JSX.Element {
  let part = parts.get(key);
  if (part === undefined) {
    part = keep(render());
    if (parts.size >= MAX_KEPT) parts.clear();
    parts.set(key, part);
  } else {
    hold(part);
  }
  return part.marker;
}

/**
 * A string built by concatenation is a tree of pieces until something reads its characters, and
 * each page that includes it would walk that tree again. Reading one character makes the engine
 * copy it into one flat string, once. For constants rendered at start-up.
 */
export function flatten<T>(html: T): T {
  if (typeof html === "string") html.charCodeAt(0);
  return html;
}

/** Whether a page or fragment includes kept parts. */
const hasKeptParts = (html: string) => html.includes(MARK_OPEN);

/** Calls `text` for each run of the page's own text and `part` for each kept part, in order. */
function walk(html: string, text: (run: string) => void, part: (kept: Kept) => void) {
  let at = 0;
  for (;;) {
    const open = html.indexOf(MARK_OPEN, at);
    if (open < 0) break;
    const close = html.indexOf(MARK_CLOSE, open + MARK_OPEN.length);
    if (open > at) text(html.slice(at, open));
    part(held(Number(html.slice(open + MARK_OPEN.length, close))));
    at = close + MARK_CLOSE.length;
  }
  if (at < html.length) text(at === 0 ? html : html.slice(at));
}

/** The HTML with every kept part written out as text (CSRF slots left as they are). */
export function expandText(html: string): string {
  if (!hasKeptParts(html)) return html;
  let out = "";
  walk(
    html,
    (run) => (out += run),
    (kept) => (out += kept.text),
  );
  return out;
}

/**
 * The answer's bytes: the page's own text in UTF-8 with each kept part's bytes in place, and the
 * visitor's CSRF token in each slot. A kept part with a slot needs the token.
 */
export function pageBytes(html: string, csrf: string | null): Uint8Array<ArrayBuffer> {
  if (!hasKeptParts(html)) return encoder.encode(html);
  const chunks: Uint8Array[] = [];
  let token: Uint8Array | null = null;
  let length = 0;
  const add = (chunk: Uint8Array) => {
    chunks.push(chunk);
    length += chunk.length;
  };
  walk(
    html,
    (run) => add(encoder.encode(run)),
    (kept) => {
      kept.pieces.forEach((piece, i) => {
        if (i > 0) {
          if (csrf === null) throw new Error("a kept part with a CSRF slot was sent without a token");
          add((token ??= encoder.encode(csrf)));
        }
        add(piece);
      });
    },
  );
  return Buffer.concat(chunks, length);
}
