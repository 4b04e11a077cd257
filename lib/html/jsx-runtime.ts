/**
 * The server's JSX runtime: @kitajs/html's, with every attribute value fully escaped.
 *
 * @kitajs/html escapes only `"` in attribute values, so an `&quot;` typed by someone came back
 * from the browser as `"`: island props gained keys or stopped parsing, and inputs showed (and
 * saved) `R&D` for `R&amp;D`. Here each string value is escaped for `&`, `<`, `>`, `"` and `'`
 * before @kitajs/html sees it (which then finds no `"` left to touch), so what the browser
 * decodes is exactly the string the view passed. Children keep @kitajs/html's rules (`safe`).
 * tsconfig.json makes this module the `jsxImportSource` for server code; islands use React's.
 */
import { escapeHtml, type Children } from "@kitajs/html";
import { Fragment, jsx as kitaJsx, jsxs as kitaJsxs } from "@kitajs/html/jsx-runtime";

type Attributes = { children?: Children; [key: string]: any };

/** Keys @kitajs/html reads itself and never writes as attributes. */
const RESERVED = new Set(["children", "safe", "of"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function escapeValue(value: unknown): unknown {
  if (typeof value === "string") return escapeHtml(value);
  if (value === null || value === undefined || typeof value !== "object" || value instanceof Date) return value;
  // class lists and style objects: their strings, escaped.
  if (Array.isArray(value)) return value.map((item) => (typeof item === "string" ? escapeHtml(item) : item));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === "string" ? escapeHtml(v) : v]));
  }
  // Anything else is written through its toString(), escaped too.
  return escapeHtml(String(value));
}

/** The attributes with every value escaped; the same object when nothing needed it. */
export function escapeAttributes<T extends Attributes>(attributes: T): T {
  let out: Record<string, unknown> | null = null;
  for (const key in attributes) {
    if (RESERVED.has(key)) continue;
    const value = attributes[key];
    // `attrs` as a string is @kitajs/html's raw escape hatch; as an object it is more attributes.
    const escaped = key === "attrs" ? (isPlainObject(value) ? escapeAttributes(value as Attributes) : value) : escapeValue(value);
    if (escaped === value) continue;
    out ??= { ...attributes };
    out[key] = escaped;
  }
  return (out ?? attributes) as T;
}

export function jsx(name: string | Function, attributes: Attributes): JSX.Element {
  return kitaJsx(name, typeof name === "function" ? attributes : escapeAttributes(attributes));
}

export function jsxs(name: string | Function, attributes: Attributes & { children: Children[] }): JSX.Element {
  return kitaJsxs(name, typeof name === "function" ? attributes : escapeAttributes(attributes));
}

export { Fragment };
