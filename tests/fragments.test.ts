import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { CSRF_SLOT, expandText, keep, pageBytes, remember, type KeptParts } from "../lib/html/fragments";
import { crc32Shift, crcMultiply } from "../lib/compression/crc32";
import { compressedPage } from "../lib/compression/responses";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const request = (acceptEncoding?: string, method = "GET") =>
  new Request("http://localhost/browse", { method, headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {} });

describe("kept parts", () => {
  test("are drawn into the page the first time, then kept: a marker written out as the part's own bytes, nested ones included", () => {
    const parts: KeptParts = new Map();
    // The first time, the part's text itself: a part of the long tail may never be asked for again.
    expect(String(remember(parts, "inner", () => "<li>Café ★</li>"))).toBe("<li>Café ★</li>");
    const inner = remember(parts, "inner", () => "<li>Café ★</li>");
    expect(String(inner)).toStartWith("<!--kept:");
    expect(String(remember(parts, "outer", () => `<ul>${inner}${inner}</ul>`))).not.toStartWith("<!--kept:");
    const outer = remember(parts, "outer", () => `<ul>${inner}${inner}</ul>`);
    expect(String(outer)).toStartWith("<!--kept:");
    expect(String(outer).length).toBeLessThan(60);
    const page = `<main>${outer}<p>après</p></main>`;
    expect(decode(pageBytes(page, null))).toBe("<main><ul><li>Café ★</li><li>Café ★</li></ul><p>après</p></main>");
    expect(expandText(page)).toBe("<main><ul><li>Café ★</li><li>Café ★</li></ul><p>après</p></main>");
  });

  test("are drawn at most twice per key", () => {
    const parts: KeptParts = new Map();
    let renders = 0;
    const render = () => `<p>${++renders}</p>`;
    expect(String(remember(parts, "k", render))).toBe("<p>1</p>");
    const a = remember(parts, "k", render);
    const b = remember(parts, "k", render);
    expect(a).toBe(b);
    expect(renders).toBe(2);
    expect(decode(pageBytes(String(a), null))).toBe("<p>2</p>");
  });

  test("a part drawn once carries the visitor's token in its slots too", () => {
    const parts: KeptParts = new Map();
    const form = () => `<form><input name="_csrf" value="${CSRF_SLOT}"/></form>`;
    const once = String(remember(parts, "form", form));
    expect(decode(pageBytes(`<main>${once}</main>`, "token-of-ana"))).toBe('<main><form><input name="_csrf" value="token-of-ana"/></form></main>');
    expect(() => pageBytes(once, null)).toThrow();
    const kept = String(remember(parts, "form", form));
    expect(decode(pageBytes(`${once}${kept}`, "token-of-ben"))).toBe('<form><input name="_csrf" value="token-of-ben"/></form>'.repeat(2));
  });

  test("carry each visitor's CSRF token in their slots, and refuse to go out without one", () => {
    const part = keep(`<form><input name="_csrf" value="${CSRF_SLOT}"/></form><b>${CSRF_SLOT}</b>`);
    expect(decode(pageBytes(part.marker, "token-of-ana"))).toBe('<form><input name="_csrf" value="token-of-ana"/></form><b>token-of-ana</b>');
    expect(decode(pageBytes(part.marker, "token-of-ben"))).toContain('value="token-of-ben"');
    expect(() => pageBytes(part.marker, null)).toThrow();
  });

  test("text that looks like a marker but lacks the server's secret is left as it is", () => {
    const typed = "<p>&lt;!--kept:0:1--&gt; <!--kept:00000000000000000000000000000000:1--></p>";
    expect(decode(pageBytes(typed, null))).toBe(typed);
  });

  test("must render synchronously", () => {
    expect(() => keep(Promise.resolve("<p>late</p>") as unknown as JSX.Element)).toThrow();
  });
});

describe("a page compressed from its own text", () => {
  const parts: KeptParts = new Map();
  const section = () => `<section>${"<p>The same for everyone who sees it.</p>".repeat(80)}<input name="_csrf" value="${CSRF_SLOT}"/></section>`;
  // Kept from its second drawing on: the first is the text itself.
  const drawnOnce = String(remember(parts, "body", section));
  const body = remember(parts, "body", section);
  const page = (name: string, token: string) => `<!doctype html><title>${name}</title><meta name="csrf-token" content="${token}"/>${body}`;

  test("decodes to the page with the visitor's own token, in the encoding asked for", () => {
    expect(drawnOnce).toBe(section());
    expect(String(body)).toStartWith("<!--kept:");
    const br = compressedPage(request("br"), page("Ana", "tok-ana"), "tok-ana");
    expect(br.encoding).toBe("br");
    const html = brotliDecompressSync(br.body).toString();
    expect(html).toBe(decode(pageBytes(page("Ana", "tok-ana"), "tok-ana")));
    expect(html).toContain('name="_csrf" value="tok-ana"');
    const gz = compressedPage(request("gzip"), page("Ana", "tok-ana"), "tok-ana");
    expect(gz.encoding).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(html);
    // A browser that takes both gets gzip: the kept parts are compressed already.
    expect(compressedPage(request("gzip, deflate, br, zstd"), page("Ana", "tok-ana"), "tok-ana").encoding).toBe("gzip");
    expect(compressedPage(request("gzip;q=0.5, br"), page("Ana", "tok-ana"), "tok-ana").encoding).toBe("br");
  });

  test("a page asked for again and again is kept compressed: each answer is those bytes with the visitor's own token", () => {
    const token = (who: string) => Buffer.from(who.padEnd(32, "·")).toString("base64url").slice(0, 43);
    const people = ["Ana", "Ben", "Cleo", "Dan", "Eve"].map(token);
    const list = Array.from({ length: 300 }, (_, i) => `<li>Activity ${i * 7919 % 1000}: ${["tennis", "cooking", "a walk", "pottery"][i % 4]} in ${["Paris", "Lisbon", "New York"][i % 3]}, ${(i * 37) % 90} € an hour</li>`).join("");
    const shared = (tok: string) => `<!doctype html><title>Browse</title><meta name="csrf-token" content="${tok}"/>${body}<ul>${list}</ul>`;
    const answers = people.map((tok) => compressedPage(request("gzip"), shared(tok), tok).body);
    answers.forEach((gz, i) => expect(gunzipSync(gz).toString()).toBe(decode(pageBytes(shared(people[i]!), people[i]!))));
    // From the third answer on, the kept bytes: the same length, and the same bytes but where the
    // token goes and the CRC-32 (the trailer's first 4 bytes).
    const [, , third, fourth] = answers;
    expect(fourth!.length).toBe(third!.length);
    let differing = 0;
    for (let i = 0; i < third!.length; i++) if (third![i] !== fourth![i]) differing++;
    expect(differing).toBeGreaterThan(0);
    expect(differing).toBeLessThanOrEqual(2 * 43 + 4);
    // Compressed as one stream, not piece by piece: once asked for often, about the size of the
    // page gzipped whole.
    let last = third!;
    for (let i = 0; i < 40; i++) last = compressedPage(request("gzip"), shared(people[i % 5]!), people[i % 5]!).body;
    expect(gunzipSync(last).toString()).toBe(decode(pageBytes(shared(people[4]!), people[4]!)));
    expect(last.length).toBeLessThan(third!.length);
    expect(last.length).toBeLessThan(gzipSync(pageBytes(shared(people[4]!), people[4]!), { level: 6 }).length * 1.1);
  });

  test("in brotli, each visitor's page holds their own token and never another's", () => {
    const first = compressedPage(request("br"), page("Ana", "tok-ana"), "tok-ana");
    expect(brotliDecompressSync(first.body).toString()).toContain('value="tok-ana"');
    const ben = compressedPage(request("br"), page("Ben", "tok-ben"), "tok-ben");
    expect(brotliDecompressSync(ben.body).toString()).toContain('value="tok-ben"');
    expect(brotliDecompressSync(ben.body).toString()).not.toContain("tok-ana");
  });

  test("decodes whatever the page holds: long runs, every kind of character, tokens side by side, asked for once or kept", () => {
    const long = `<main>${"<p>Ana’s own message, never kept: 🎾 çà.</p>".repeat(400)}</main>`;
    const tok = "tok-ana-0123456789-abcdefghij";
    for (const html of [String(body), `${body}${long}${body}`, `<p>ünïcödé ✓ 𝄞</p>${body}<p>${"x".repeat(70_000)}</p>`, `${tok}${tok}<p>${tok}</p>${body}${tok}`]) {
      for (let i = 0; i < 4; i++) {
        const gz = compressedPage(request("gzip"), html, tok);
        expect(gz.encoding).toBe("gzip");
        expect(gunzipSync(gz.body).toString()).toBe(decode(pageBytes(html, tok)));
      }
    }
  });

  test("one page for many visitors is kept once, and each answer is the page with that visitor's token", () => {
    // Tokens as sessions make them: 43 characters of base64url.
    const token = (who: string) => Buffer.from(`${who}`.padEnd(32, "·")).toString("base64url").slice(0, 43);
    const people = ["Ana", "Ben", "Cleo", "Dan"].map(token);
    // The token in the own text twice (meta and an attribute's JSON), in the kept part's slot, and not at all.
    const shaped = (tok: string) => `<!doctype html><title>Browse</title><meta name="csrf-token" content="${tok}"/><body hx-headers='{"X-CSRF-Token":"${tok}"}'>${body}<p>after ${body}</p>`;
    for (const tok of [...people, ...people]) {
      const html = shaped(tok);
      const gz = compressedPage(request("gzip"), html, tok).body;
      // A valid stream (gunzip checks the CRC-32 and length) of that visitor's page.
      const text = gunzipSync(gz).toString();
      expect(text).toBe(decode(pageBytes(html, tok)));
      for (const other of people) if (other !== tok) expect(text).not.toContain(other);
    }
    // What differs but the token (a name in the title) is another page, never someone else's.
    const ana = `<title>Ana</title><meta name="csrf-token" content="${people[0]}"/>${body}`;
    const ben = `<title>Ben</title><meta name="csrf-token" content="${people[1]}"/>${body}`;
    expect(gunzipSync(compressedPage(request("gzip"), ana, people[0]!).body).toString()).toContain("<title>Ana</title>");
    expect(gunzipSync(compressedPage(request("gzip"), ben, people[1]!).body).toString()).toContain("<title>Ben</title>");
    // A page holding the placeholder's character (never kept), a token after much text, no token.
    const odd = [
      [`<p>\u0001${people[0]}</p>${body}`, people[0]!],
      [`<p>${"x".repeat(3000)}${people[0]}</p>${body}`, people[0]!],
      [`<p>signed out</p>${keep("<p>no slot here</p>".repeat(80)).marker}`, null],
    ] as const;
    for (const [html, tok] of odd) {
      for (let i = 0; i < 4; i++) {
        const gz = compressedPage(request("gzip"), html, tok).body;
        expect(gunzipSync(gz).toString()).toBe(decode(pageBytes(html, tok)));
      }
    }
  });

  test("a kept page stays valid whatever its parts hold and whatever the token's length", () => {
    const kept = (html: string) => {
      const parts: KeptParts = new Map();
      const once = String(remember(parts, "k", () => html));
      const marker = String(remember(parts, "k", () => html));
      expect(once).toBe(html);
      return marker;
    };
    // The placeholder's character inside a kept part's text (the page's own text is checked apart).
    const stray = `<main>${kept(`<h1>Title\u0001 x</h1><input name="_csrf" value="${CSRF_SLOT}"/>${"<p>text</p>".repeat(200)}`)}</main>`;
    // The token only in a kept part's slot, for tokens of two lengths; an empty token.
    const slotOnly = `<main>${kept(`<form><input name="_csrf" value="${CSRF_SLOT}"/></form>${"<p>more text</p>".repeat(200)}`)}</main>`;
    const cases: [string, string][] = [
      ...Array.from({ length: 5 }, (): [string, string] => [stray, "tok-ana-0123456789-abcdefghijklmnopqrstuv"]),
      ...Array.from({ length: 4 }, (): [string, string] => [slotOnly, "tok-ana-0123456789-abcdefghijklmnopqrstuv"]),
      ...Array.from({ length: 4 }, (): [string, string] => [slotOnly, "tok-ben-0123456789"]),
      ...Array.from({ length: 4 }, (): [string, string] => [slotOnly, ""]),
    ];
    for (const [html, tok] of cases) {
      const gz = compressedPage(request("gzip"), html, tok);
      expect(gunzipSync(gz.body).toString()).toBe(decode(pageBytes(html, tok)));
    }
  });

  test("moves a CRC-32 past any number of bytes the way zlib's crc32_combine does", () => {
    const bytes = new TextEncoder().encode("The same for everyone who sees it. ".repeat(300));
    for (const cut of [0, 1, 7, 8, 255, 4096, bytes.length - 1, bytes.length]) {
      const a = bytes.subarray(0, cut);
      const b = bytes.subarray(cut);
      expect((crcMultiply(crc32Shift(b.length), Bun.hash.crc32(a)) ^ Bun.hash.crc32(b)) >>> 0).toBe(Bun.hash.crc32(bytes));
    }
  });

  test("is sent as it is without Accept-Encoding, for HEAD, and under 1 KB", () => {
    for (const r of [request(), request("identity"), request("br", "HEAD")]) {
      const plain = compressedPage(r, page("Ana", "tok-ana"), "tok-ana");
      expect(plain.encoding).toBeNull();
      expect(decode(plain.body)).toContain('value="tok-ana"');
    }
    const small = compressedPage(request("br"), "<p>short</p>", "tok");
    expect(small.encoding).toBeNull();
    expect(decode(small.body)).toBe("<p>short</p>");
  });
});
