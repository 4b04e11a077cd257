import { describe, expect, test } from "bun:test";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { CSRF_SLOT, expandText, keep, pageBytes, remember, type KeptParts } from "../lib/html/fragments";
import { crc32Combine, crc32Shift } from "../lib/compression/crc32";
import { compressedPage } from "../lib/compression/responses";
import { splicedGzip } from "../lib/compression/spliced-gzip";

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const request = (acceptEncoding?: string, method = "GET") =>
  new Request("http://localhost/browse", { method, headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {} });

describe("kept parts", () => {
  test("stand in a page as a marker and are written out as their own bytes, nested ones included", () => {
    const parts: KeptParts = new Map();
    const inner = remember(parts, "inner", () => "<li>Café ★</li>");
    const outer = remember(parts, "outer", () => `<ul>${inner}${inner}</ul>`);
    expect(String(outer)).toStartWith("<!--kept:");
    expect(String(outer).length).toBeLessThan(60);
    const page = `<main>${outer}<p>après</p></main>`;
    expect(decode(pageBytes(page, null))).toBe("<main><ul><li>Café ★</li><li>Café ★</li></ul><p>après</p></main>");
    expect(expandText(page)).toBe("<main><ul><li>Café ★</li><li>Café ★</li></ul><p>après</p></main>");
  });

  test("are rendered once per key", () => {
    const parts: KeptParts = new Map();
    let renders = 0;
    const render = () => `<p>${++renders}</p>`;
    const a = remember(parts, "k", render);
    const b = remember(parts, "k", render);
    expect(a).toBe(b);
    expect(renders).toBe(1);
    expect(decode(pageBytes(String(remember(parts, "other", render)), null))).toBe("<p>2</p>");
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
  const body = remember(parts, "body", () => `<section>${"<p>The same for everyone who sees it.</p>".repeat(80)}<input name="_csrf" value="${CSRF_SLOT}"/></section>`);
  const page = (name: string, token: string) => `<!doctype html><title>${name}</title><meta name="csrf-token" content="${token}"/>${body}`;

  test("decodes to the page with the visitor's own token, in the encoding asked for", () => {
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

  test("a crowd of visitors gets the kept parts' compressed bytes as they are, each with their own token", () => {
    const ana = compressedPage(request("gzip"), page("Ana", "tok-ana"), "tok-ana").body;
    const ben = compressedPage(request("gzip"), page("Ben", "tok-ben"), "tok-ben").body;
    expect(gunzipSync(ana).toString()).toBe(decode(pageBytes(page("Ana", "tok-ana"), "tok-ana")));
    expect(gunzipSync(ben).toString()).toBe(decode(pageBytes(page("Ben", "tok-ben"), "tok-ben")));
    expect(gunzipSync(ben).toString()).not.toContain("tok-ana");
    // The kept section's compressed bytes are in both answers, byte for byte.
    const middle = Math.floor(ana.length / 2);
    const shared = Buffer.from(ana).subarray(middle - 20, middle + 20);
    expect(Buffer.from(ben).indexOf(shared)).toBeGreaterThan(0);
  });

  test("in brotli, each visitor's page holds their own token and never another's", () => {
    const first = compressedPage(request("br"), page("Ana", "tok-ana"), "tok-ana");
    expect(brotliDecompressSync(first.body).toString()).toContain('value="tok-ana"');
    const ben = compressedPage(request("br"), page("Ben", "tok-ben"), "tok-ben");
    expect(brotliDecompressSync(ben.body).toString()).toContain('value="tok-ben"');
    expect(brotliDecompressSync(ben.body).toString()).not.toContain("tok-ana");
  });

  test("decodes whatever the own text holds: none, long runs that are compressed, every kind of character", () => {
    const long = `<main>${"<p>Ana’s own message, never kept: 🎾 çà.</p>".repeat(400)}</main>`;
    for (const html of [String(body), `${body}${long}${body}`, `<p>ünïcödé ✓ 𝄞</p>${body}<p>${"x".repeat(70_000)}</p>`]) {
      const gz = splicedGzip(html, "tok-ana");
      expect(gunzipSync(gz).toString()).toBe(decode(pageBytes(html, "tok-ana")));
    }
  });

  test("one page for many visitors is spliced once, and each answer is the page with that visitor's token", () => {
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
    // A page holding the placeholder's character (spliced as it is), a token in own text long enough to be compressed, no token.
    const odd = [
      [`<p>\u0001${people[0]}</p>${body}`, people[0]!],
      [`<p>${"x".repeat(3000)}${people[0]}</p>${body}`, people[0]!],
      [`<p>signed out</p>${keep("<p>no slot here</p>".repeat(80)).marker}`, null],
    ] as const;
    for (const [html, tok] of odd) {
      for (let i = 0; i < 2; i++) {
        const gz = compressedPage(request("gzip"), html, tok).body;
        expect(gunzipSync(gz).toString()).toBe(decode(pageBytes(html, tok)));
      }
    }
  });

  test("joins CRC-32s the way zlib does, for any lengths", () => {
    const bytes = new TextEncoder().encode("The same for everyone who sees it. ".repeat(300));
    for (const cut of [0, 1, 7, 8, 255, 4096, bytes.length - 1, bytes.length]) {
      const a = bytes.subarray(0, cut);
      const b = bytes.subarray(cut);
      expect(crc32Combine(Bun.hash.crc32(a), Bun.hash.crc32(b), crc32Shift(b.length))).toBe(Bun.hash.crc32(bytes));
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
