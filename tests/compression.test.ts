import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { precompressedPath } from "../lib/assets";
import { json } from "../lib/http";
import { negotiateEncoding } from "../lib/compression/encoding";
import { compressResponse } from "../lib/compression/responses";
import { Client, makeTestApp } from "./helpers";

const root = join(import.meta.dir, "..");
let t: Awaited<ReturnType<typeof makeTestApp>>;
let member: Client;

beforeAll(async () => {
  // The built files' tests read the build's output: on a fresh checkout, build it first.
  if (!existsSync(join(root, "build/manifest.json"))) {
    const build = Bun.spawnSync([process.execPath, "scripts/build.ts"], { cwd: root, stdout: "ignore", stderr: "inherit" });
    if (build.exitCode !== 0) throw new Error(`scripts/build.ts failed (exit ${build.exitCode})`);
  }
  t = await makeTestApp();
  member = t.client();
  await member.signUpComplete();
});
afterAll(() => t.cleanup());

const brRequest = () => new Request("http://localhost/", { headers: { "accept-encoding": "br" } });
const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());

describe("choosing an encoding from Accept-Encoding", () => {
  test("brotli is preferred, q-values are honoured, identity or nothing means none", () => {
    expect(negotiateEncoding("gzip, deflate, br, zstd")).toBe("br");
    expect(negotiateEncoding("gzip")).toBe("gzip");
    expect(negotiateEncoding("br;q=0.5, gzip;q=0.8")).toBe("gzip");
    expect(negotiateEncoding("br;q=0, gzip")).toBe("gzip");
    expect(negotiateEncoding("br;q=0, gzip;q=0")).toBeNull();
    expect(negotiateEncoding("*")).toBe("br");
    expect(negotiateEncoding("*;q=0.1, gzip;q=0.5")).toBe("gzip");
    expect(negotiateEncoding("identity")).toBeNull();
    expect(negotiateEncoding("")).toBeNull();
    expect(negotiateEncoding(null)).toBeNull();
    expect(negotiateEncoding("deflate")).toBeNull();
    expect(negotiateEncoding(";;,,q=,br;q=abc")).toBeNull();
    expect(negotiateEncoding("br", ["gzip"])).toBeNull();
  });
});

describe("pages, fragments and JSON", () => {
  test("a page is sent with brotli or gzip as the browser accepts, and decodes to the same page", async () => {
    const plain = await member.get("/browse");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toContain("Accept-Encoding");
    const html = await plain.text();
    expect(html.length).toBeGreaterThan(1024);

    // A page made of kept parts goes gzip when the browser takes gzip as readily (lib/compression/).
    const browser = await member.get("/browse", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(browser.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(await bytes(browser)).toString()).toBe(html);

    const br = await member.get("/browse", { "accept-encoding": "br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    const brBody = await bytes(br);
    expect(Number(br.headers.get("content-length"))).toBe(brBody.length);
    expect(brBody.length).toBeLessThan(html.length / 3);
    expect(brotliDecompressSync(brBody).toString()).toBe(html);

    const gz = await member.get("/browse", { "accept-encoding": "gzip" });
    expect(gz.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(await bytes(gz)).toString()).toBe(html);

    const weighted = await member.get("/browse", { "accept-encoding": "br;q=0.2, gzip;q=0.9" });
    expect(weighted.headers.get("content-encoding")).toBe("gzip");
    const identity = await member.get("/browse", { "accept-encoding": "identity" });
    expect(identity.headers.get("content-encoding")).toBeNull();
    expect(await identity.text()).toBe(html);
  });

  test("Vary keeps what the route said and gains Accept-Encoding once", async () => {
    // Browse's own headers are laid over the page's once and copied: each answer is the same.
    for (let i = 0; i < 3; i++) {
      const res = await member.get("/browse", { "accept-encoding": i === 1 ? "gzip" : "br" });
      const vary = res.headers.get("vary")!.split(",").map((v) => v.trim());
      expect(vary).toEqual(["Accept-Encoding", "HX-Request", "HX-Target"]);
      expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
    const own = compressResponse(brRequest(), new Response("x".repeat(5000), { headers: { "Content-Type": "text/plain", Vary: "Cookie" } }));
    expect(own.headers.get("vary")).toBe("Cookie, Accept-Encoding");
  });

  test("htmx fragments, error pages and the catch-all 404 are compressed too", async () => {
    const fragment = await member.get("/browse", { "accept-encoding": "br", "hx-request": "true", "hx-target": "browse" });
    expect(fragment.status).toBe(200);
    const fragmentText = brotliDecompressSync(await bytes(fragment)).toString();
    expect(fragmentText).not.toContain("<html");
    const missing = await member.get("/no/such/page", { "accept-encoding": "br" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-encoding")).toBe("br");
    expect(brotliDecompressSync(await bytes(missing)).toString()).toContain("<html");
    // A failure inside a route: the error page is compressed as well.
    const body = t.deps.storage.body;
    t.deps.storage.body = () => Promise.reject(new Error("storage down (expected by the test)"));
    const failed = await member.get(`/objects/${crypto.randomUUID()}`, { "accept-encoding": "gzip" });
    t.deps.storage.body = body;
    expect(failed.status).toBe(500);
    expect(failed.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(await bytes(failed)).toString()).toContain("<html");
    // A visitor meets the landing page in place of an app screen.
    const landing = await t.client().get("/settings", { "accept-encoding": "br" });
    expect(landing.headers.get("content-encoding")).toBe("br");
  });

  test("JSON of 1 KB or more is compressed; small answers are not", async () => {
    const list = { items: Array.from({ length: 50 }, (_, i) => ({ id: i, title: `Activity ${i}` })) };
    const big = compressResponse(brRequest(), json(list));
    expect(big.headers.get("content-encoding")).toBe("br");
    expect(JSON.parse(brotliDecompressSync(await bytes(big)).toString())).toEqual(list);
    const small = compressResponse(brRequest(), json({ ok: true }));
    expect(small.headers.get("content-encoding")).toBeNull();
    expect(small.headers.get("vary")).toBeNull();
    const health = await member.get("/health", { "accept-encoding": "br, gzip" });
    expect(health.headers.get("content-encoding")).toBeNull();
    expect(await health.json()).toEqual({ ok: true });
  });

  test("an answer with the same bytes as an earlier one gets the same encoding; one differing in a byte gets its own", async () => {
    const page = (token: string) => `<!doctype html><meta name="csrf-token" content="${token}">${"<li>the same list for everyone</li>".repeat(200)}`;
    const send = (body: string, encoding: string) =>
      compressResponse(new Request("http://localhost/", { headers: { "accept-encoding": encoding } }), new Response(body, { headers: { "content-type": "text/html" } }));
    for (const encoding of ["br", "gzip"]) {
      const decode = encoding === "br" ? brotliDecompressSync : gunzipSync;
      const first = await bytes(send(page("a".repeat(43)), encoding));
      const again = await bytes(send(page("a".repeat(43)), encoding));
      expect(again).toEqual(first);
      expect(decode(again).toString()).toBe(page("a".repeat(43)));
      // Same length, one character apart: never the other answer's bytes.
      const other = send(page("b".repeat(43)), encoding);
      expect(other.headers.get("content-encoding")).toBe(encoding);
      expect(decode(await bytes(other)).toString()).toBe(page("b".repeat(43)));
      expect(decode(await bytes(send(page("a".repeat(43)), encoding))).toString()).toBe(page("a".repeat(43)));
    }
  });

  test("never twice, never a stream, never an image, never HEAD or 204", async () => {
    const text = "y".repeat(5000);
    const encoded = compressResponse(brRequest(), new Response(text, { headers: { "Content-Type": "text/plain", "Content-Encoding": "gzip" } }));
    expect(encoded.headers.get("content-encoding")).toBe("gzip");
    expect(await encoded.text()).toBe(text);
    // A stream still being written goes out as it comes, its first part before the last.
    let finish!: () => void;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        finish = () => controller.close();
      },
    });
    const streamed = compressResponse(brRequest(), new Response(stream, { headers: { "Content-Type": "text/html" } }));
    expect(streamed.headers.get("content-encoding")).toBeNull();
    const reader = streamed.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(text);
    finish();
    expect((await reader.read()).done).toBe(true);
    const png = compressResponse(brRequest(), new Response(new Uint8Array(5000), { headers: { "Content-Type": "image/png" } }));
    expect(png.headers.get("content-encoding")).toBeNull();
    const optedOut = compressResponse(brRequest(), new Response(text, { headers: { "Content-Type": "text/plain", "Cache-Control": "no-transform" } }));
    expect(optedOut.headers.get("content-encoding")).toBeNull();
    const head = await member.request("/browse", { method: "HEAD", headers: { "accept-encoding": "br" } });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-encoding")).toBeNull();
    const empty = compressResponse(brRequest(), new Response(null, { status: 204, headers: { "Content-Type": "text/plain" } }));
    expect(empty.status).toBe(204);
    expect(empty.headers.get("content-encoding")).toBeNull();
    const notModified = compressResponse(brRequest(), new Response(null, { status: 304, headers: { "Content-Type": "text/plain" } }));
    expect(notModified.headers.get("content-encoding")).toBeNull();
    // The same answer of a plain 200 would be compressed.
    expect(compressResponse(brRequest(), new Response(text, { headers: { "Content-Type": "text/plain" } })).headers.get("content-encoding")).toBe("br");
  });
});

describe("built and shipped files", () => {
  test("are served as the build's compressed copy, byte for byte, with the original's type", async () => {
    const css = t.deps.assets.css!;
    const relPath = t.deps.assets.files[css]!;
    const original = await Bun.file(join(root, relPath)).bytes();
    for (const [encoding, decode] of [
      ["br", brotliDecompressSync],
      ["gzip", gunzipSync],
    ] as const) {
      const res = await t.client().get(css, { "accept-encoding": encoding });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-encoding")).toBe(encoding);
      expect(res.headers.get("content-type")).toStartWith("text/css");
      expect(res.headers.get("vary")).toBe("Accept-Encoding");
      expect(res.headers.get("cache-control")).toContain("immutable");
      const body = await bytes(res);
      const onDisk = await Bun.file(join(root, precompressedPath(relPath, encoding))).bytes();
      expect(Number(res.headers.get("content-length"))).toBe(onDisk.length);
      expect(body).toEqual(onDisk);
      expect(new Uint8Array(decode(body))).toEqual(original);
    }
    const plain = await t.client().get(css);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await bytes(plain)).toEqual(original);
  });

  test("scripts, the service worker and SVGs under public/ too", async () => {
    const loader = await t.client().get(t.deps.assets.loader!, { "accept-encoding": "gzip, br" });
    expect(loader.headers.get("content-encoding")).toBe("br");
    expect(loader.headers.get("content-type")).toStartWith("text/javascript");
    const sw = await t.client().get("/sw.js", { "accept-encoding": "gzip" });
    expect(sw.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(sw.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(await bytes(sw)).toString()).toBe(await Bun.file(join(root, "build/public/sw.js")).text());
    const icon = await t.client().get("/static/icon.svg", { "accept-encoding": "br" });
    expect(icon.headers.get("content-type")).toStartWith("image/svg+xml");
    expect(icon.headers.get("content-encoding")).toBe("br");
    expect(icon.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(brotliDecompressSync(await bytes(icon)).toString()).toBe(await Bun.file(join(root, "public/icon.svg")).text());
  });

  test("HEAD answers with the headers and no body", async () => {
    const res = await t.client().request(t.deps.assets.css!, { method: "HEAD", headers: { "accept-encoding": "br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/css");
    expect((await bytes(res)).length).toBe(0);
  });
});
