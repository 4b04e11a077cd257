/**
 * Rendered once, reused: parts of pages that are the same for everyone who sees them (a city
 * list, a category grid, a card, the install card in a language), kept as the finished string
 * (decision 0018). A part kept here must be a function of its key alone: never of the visitor
 * (name, CSRF token, toast, theme), so the kept string is exactly what rendering again gives.
 * @kitajs/html returns plain strings, so a kept part is concatenated like any other child.
 */

/** Parts kept per cache at most; a full cache starts over (keys are few: cities, languages, categories). */
const MAX_KEPT = 500;

/**
 * A string built by concatenation is a tree of pieces until something reads its characters, and
 * each page that includes it would walk that tree again. Reading one character makes the engine
 * copy it into one flat string, once. Parts rendered once at start-up go through it too.
 */
export function flatten<T>(html: T): T {
  if (typeof html === "string") html.charCodeAt(0);
  return html;
}

/** The part kept under `key`, rendered by `render` the first time. */
export function remember(cache: Map<string, JSX.Element>, key: string, render: () => JSX.Element): JSX.Element {
  let html = cache.get(key);
  if (html === undefined) {
    html = flatten(render());
    if (cache.size >= MAX_KEPT) cache.clear();
    cache.set(key, html);
  }
  return html;
}
