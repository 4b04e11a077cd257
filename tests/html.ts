/**
 * Reading server HTML the way a browser does: elements found with HTMLRewriter (which hands
 * back attribute values and text as written), then character references decoded as the HTML
 * parser decodes them in attribute values and in RCDATA (textarea) text.
 */

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Decodes `&name;`, `&#NN;` and `&#xHH;` references (the ones HTML escaping produces). */
export function decodeHtml(text: string): string {
  return text.replace(/&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([a-zA-Z]+));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    return NAMED[name!] ?? whole;
  });
}

export interface Found {
  attributes: Record<string, string>;
  /** Decoded text inside the element (for a textarea: its value, without the leading newline the parser drops). */
  text: string;
}

/** Every element matching a CSS selector, with decoded attributes and text. */
export function select(html: string, selector: string): Found[] {
  const found: { attributes: Record<string, string>; raw: string }[] = [];
  new HTMLRewriter()
    .on(selector, {
      element(element) {
        const attributes: Record<string, string> = {};
        for (const [name, value] of element.attributes) attributes[name] = decodeHtml(value);
        found.push({ attributes, raw: "" });
      },
      text(chunk) {
        const last = found.at(-1);
        if (last) last.raw += chunk.text;
      },
    })
    .transform(html);
  return found.map(({ attributes, raw }) => ({ attributes, text: decodeHtml(raw).replace(/^\n/, "") }));
}

/** The props an island mounts with: its data-props, decoded and parsed as the loader does. */
export function islandProps(html: string, name: string): Record<string, unknown> {
  const [island] = select(html, `[data-island="${name}"]`);
  if (!island) throw new Error(`no ${name} island on the page`);
  return JSON.parse(island.attributes["data-props"] ?? "{}") as Record<string, unknown>;
}

/** What a form field holds once parsed: an input's value, a textarea's text. */
export function fieldValue(html: string, name: string): string {
  const [input] = select(html, `input[name="${name}"]`);
  if (input) return input.attributes.value ?? "";
  const [textarea] = select(html, `textarea[name="${name}"]`);
  if (textarea) return textarea.text;
  throw new Error(`no field named ${name} on the page`);
}

/**
 * What a browser submits for a form (found by selector): its inputs (checkboxes and radios only
 * when checked, "on" without a value), textareas, and each select's selected (or first) option.
 */
export function formData(html: string, form: string): Record<string, string> {
  const data: Record<string, string> = {};
  let select: { name: string; chosen: boolean } | null = null;
  let textarea: { name: string; raw: string } | null = null;
  new HTMLRewriter()
    .on(`${form} input`, {
      element(e) {
        const name = e.getAttribute("name");
        const type = (e.getAttribute("type") ?? "text").toLowerCase();
        if (!name || e.hasAttribute("disabled") || type === "submit" || type === "button" || type === "file") return;
        if ((type === "checkbox" || type === "radio") && !e.hasAttribute("checked")) return;
        data[decodeHtml(name)] = decodeHtml(e.getAttribute("value") ?? (type === "checkbox" || type === "radio" ? "on" : ""));
      },
    })
    .on(`${form} textarea`, {
      element(e) {
        const name = e.getAttribute("name");
        if (!name) return;
        const field = { name: decodeHtml(name), raw: "" };
        textarea = field;
        e.onEndTag(() => {
          data[field.name] = decodeHtml(field.raw).replace(/^\n/, "");
          textarea = null;
        });
      },
      text(chunk) {
        if (textarea) textarea.raw += chunk.text;
      },
    })
    .on(`${form} select`, {
      element(e) {
        const name = e.getAttribute("name");
        select = name ? { name: decodeHtml(name), chosen: false } : null;
      },
    })
    .on(`${form} option`, {
      element(e) {
        if (!select || e.hasAttribute("disabled")) return;
        const value = decodeHtml(e.getAttribute("value") ?? "");
        if (e.hasAttribute("selected")) {
          data[select.name] = value;
          select.chosen = true;
        } else if (!select.chosen && !(select.name in data)) data[select.name] = value;
      },
    })
    .transform(html);
  return data;
}
