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
 *
 * What a kept part is rendered from is a `KeptView` (below): texts, language and built
 * files, copied out of the visitor's View by `remember` itself, so the render cannot reach the
 * person (name, CSRF token, toast, unread count) even by mistake. Personal content stays outside
 * kept parts: the CSRF token as `CSRF_SLOT`, anything else between kept parts (`rememberAround`).
 */
import type { Locale, Translate } from "../i18n";
import type { AssetManifest } from "../manifest";

/**
 * What a kept part is rendered from (`remember`): the texts, the language and the built files,
 * nothing of the person. A kept part is rendered once and sent to everyone whose page has its
 * key, so its render must not reach the user, the CSRF token, the toast, the unread count or the
 * path (unless the key fixes it): `keptViewOf` copies only these. A screen's View has them all.
 */
export interface KeptView {
  t: Translate;
  locale: Locale;
  assets: AssetManifest;
}

/**
 * A kept part with forms in it: `csrf` is the slot filled with each visitor's own token when the
 * answer is made (`CSRF_SLOT`), and `path` the one the part's key fixes, never the visitor's own.
 * Made by `remember` (with its `form` argument), never by hand from a View.
 */
export interface KeptFormView extends KeptView {
  csrf: string;
  path: string;
}

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

/** Where a kept part's pieces have the visitor's CSRF token. */
export const SLOT = Symbol("csrf slot");

/**
 * A kept part, in order: its own bytes, the kept parts inside it (a browse page's cards: held
 * where they are, never copied into it), and the slots for the visitor's CSRF token.
 */
export interface Kept {
  readonly id: number;
  readonly marker: string;
  readonly pieces: readonly (Uint8Array | Kept | typeof SLOT)[];
  /** Its own bytes (the parts inside it count for themselves). */
  readonly size: number;
}

/** Where the parts are kept, by the name the caller gives them; null: drawn once, not kept yet (`remember`). */
export type KeptParts = Map<string, Kept | null>;

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

/** Keeps finished HTML as a part; the parts whose markers are inside it are kept inside it as they are. */
export function keep(html: JSX.Element): Kept {
  if (typeof html !== "string") throw new Error("a kept part must render synchronously");
  const pieces: (Uint8Array | Kept | typeof SLOT)[] = [];
  let size = 0;
  walk(
    html,
    (run) => {
      const texts = run.split(CSRF_SLOT);
      for (let i = 0; i < texts.length; i++) {
        if (i > 0) pieces.push(SLOT);
        if (texts[i]) {
          const bytes = encoder.encode(texts[i]);
          pieces.push(bytes);
          size += bytes.length;
        }
      }
    },
    (inside) => pieces.push(inside),
  );
  const id = nextId++;
  const part: Kept = { id, marker: `${MARK_OPEN}${id}${MARK_CLOSE}`, pieces, size: size + 64 };
  hold(part);
  return part;
}

/**
 * The kept view of a view: a copy of the fields a kept part may use (src/shell/view.ts), so
 * nothing else of the visitor is reachable from it. Made only when a part is rendered.
 */
export function keptViewOf(view: KeptView): KeptView {
  return { t: view.t, locale: view.locale, assets: view.assets };
}

/**
 * The part kept under `key`; in the page, its marker. A part is kept the second time its key is
 * asked for: the first time it is drawn into the page as text (its CSRF slots filled per answer
 * like a kept part's), because most parts of a catalogue's long tail (an activity page's text, a
 * browse page's cards) are asked for once in a while, and keeping one costs more than drawing it
 * (decision 0058).
 *
 * The rule: a kept part is sent to everyone whose page has its key, so its render may use only
 * what the key determines. Hand in the visitor's view and render from the `KeptView` `render`
 * receives (a copy of the texts, language and built files, made only when the part is rendered),
 * never from a View the callback closes over: `remember(parts, key, view, (kept) => <X view={kept} />)`.
 * A part with forms asks for `form`: its view also has `csrf` (the slot each visitor's token fills)
 * and the `path` given, which the key must fix. A part that needs no view at all takes `render` alone.
 */
export function remember(parts: KeptParts, key: string, render: () => JSX.Element): JSX.Element;
export function remember(parts: KeptParts, key: string, view: KeptView, render: (view: KeptView) => JSX.Element): JSX.Element;
export function remember(parts: KeptParts, key: string, view: KeptView, form: { path: string }, render: (view: KeptFormView) => JSX.Element): JSX.Element;
export function remember(
  parts: KeptParts,
  key: string,
  view: KeptView | (() => JSX.Element),
  form?: { path: string } | ((view: KeptView) => JSX.Element),
  render?: (view: KeptFormView) => JSX.Element,
): JSX.Element {
  const part = parts.get(key);
  if (part) {
    hold(part);
    return part.marker;
  }
  if (parts.size >= MAX_KEPT) parts.clear();
  const html = renderKept(view, form, render);
  if (part === undefined) {
    parts.set(key, null);
    return html;
  }
  const kept = keep(html);
  parts.set(key, kept);
  return kept.marker;
}

/** Renders a kept part from the kept copy of the view, never from the view itself (`remember`). */
function renderKept(
  view: KeptView | (() => JSX.Element),
  form: { path: string } | ((view: KeptView) => JSX.Element) | undefined,
  render: ((view: KeptFormView) => JSX.Element) | undefined,
): JSX.Element {
  if (typeof view === "function") return view();
  if (typeof form === "function") return form(keptViewOf(view));
  if (form === undefined || render === undefined) throw new Error("remember: a view without a render");
  return render({ ...keptViewOf(view), csrf: CSRF_SLOT, path: form.path });
}

/** Parts kept around per-request content (`rememberAround`): the markers of each key's parts. */
export type KeptAround = Map<string, { readonly parts: readonly Kept[]; readonly markers: readonly string[] }>;

/** Where the i-th per-request content goes in what `rememberAround` renders. Letters and digits only. */
const HOLE_MARK = `kepthole${NONCE}`;
const hole = (i: number) => `${HOLE_MARK}n${i}n`;

/**
 * Like `remember`, for a part with personal content inside it (the unread badge in the
 * navigation): `render` writes `holes[i]` where the i-th per-request content goes, and the text
 * between the holes is kept. Answers the kept parts' markers, one more than `holes`: the page puts
 * each visitor's own content between them, so what is kept depends on nothing of the visitor.
 */
export function rememberAround(
  kept: KeptAround,
  key: string,
  view: KeptView,
  holes: number,
  render: (view: KeptView, holes: readonly string[]) => JSX.Element,
): readonly string[] {
  let entry = kept.get(key);
  if (entry === undefined) {
    const marks = Array.from({ length: holes }, (_, i) => hole(i));
    const html = render(keptViewOf(view), marks);
    if (typeof html !== "string") throw new Error("a kept part must render synchronously");
    let rest = html;
    const texts: string[] = [];
    for (const mark of marks) {
      const at = rest.indexOf(mark);
      if (at < 0) throw new Error(`rememberAround: hole ${texts.length} was not rendered, or not in order`);
      texts.push(rest.slice(0, at));
      rest = rest.slice(at + mark.length);
    }
    texts.push(rest);
    if (texts.some((text) => text.includes(HOLE_MARK))) throw new Error("rememberAround: a hole was rendered twice");
    const parts = texts.map((text) => keep(text));
    entry = { parts, markers: parts.map((part) => part.marker) };
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(key, entry);
  } else {
    for (const part of entry.parts) hold(part);
  }
  return entry.markers;
}

/** What `rememberAround` answered, with the visitor's own content in its holes: `kept` has one more entry than `own`. */
export function between(kept: readonly string[], own: readonly string[]): string {
  let out = kept[0] ?? "";
  for (let i = 0; i < own.length; i++) out += own[i]! + (kept[i + 1] ?? "");
  return out;
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
export const hasKeptParts = (html: string) => html.includes(MARK_OPEN);

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
    (kept) => (out += textOf(kept)),
  );
  return out;
}

const decoder = new TextDecoder();
function textOf(part: Kept): string {
  let out = "";
  for (const piece of part.pieces) out += piece === SLOT ? CSRF_SLOT : piece instanceof Uint8Array ? decoder.decode(piece) : textOf(piece);
  return out;
}

/**
 * The answer's content in order: `own` for each run of the page's own text (and the visitor's
 * CSRF token), `kept` for each piece of a kept part (its bytes between CSRF slots,
 * `part.pieces[piece]`), which never change once kept. A kept part with a slot needs the token.
 */
export function eachPieceText(html: string, csrf: string | null, own: (text: string) => void, kept: (part: Kept, piece: number) => void) {
  // A part drawn once (`remember`) is in the page's own text, with its CSRF slots.
  const ownText = (text: string) => {
    if (!text.includes(CSRF_SLOT)) return own(text);
    if (csrf === null) throw new Error("a part with a CSRF slot was sent without a token");
    own(text.replaceAll(CSRF_SLOT, csrf));
  };
  if (!hasKeptParts(html)) return ownText(html);
  const inOrder = (part: Kept) => {
    const pieces = part.pieces;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (piece === SLOT) {
        if (csrf === null) throw new Error("a kept part with a CSRF slot was sent without a token");
        own(csrf);
      } else if (piece instanceof Uint8Array) kept(part, i);
      else inOrder(piece);
    }
  };
  walk(html, ownText, inOrder);
}

/** The answer's bytes: the page's own text in UTF-8 with each kept part's bytes in place, and the visitor's CSRF token in each slot. */
export function pageBytes(html: string, csrf: string | null): Uint8Array<ArrayBuffer> {
  if (!hasKeptParts(html) && !html.includes(CSRF_SLOT)) return encoder.encode(html);
  // One walk collects the pieces and the room they need (own text: at most 3 bytes of UTF-8 a
  // unit); then they are written once, into one buffer.
  const pieces: (string | Uint8Array)[] = [];
  let room = 0;
  eachPieceText(
    html,
    csrf,
    (text) => {
      pieces.push(text);
      room += text.length * 3;
    },
    (part, i) => {
      const piece = part.pieces[i] as Uint8Array;
      pieces.push(piece);
      room += piece.length;
    },
  );
  const out = new Uint8Array(room);
  let at = 0;
  for (const piece of pieces) {
    if (typeof piece === "string") at += encoder.encodeInto(piece, out.subarray(at)).written;
    else {
      out.set(piece, at);
      at += piece.length;
    }
  }
  return out.subarray(0, at);
}
