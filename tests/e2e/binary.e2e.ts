import { expect, test } from "bun:test";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { signUpAndOnboard } from "./flows";
import { serverAndBrowser } from "./harness";

const root = join(import.meta.dir, "../..");
// Run from another folder so nothing can be read from the checkout by accident.
const env = serverAndBrowser({
  command: [join(root, "dist/offline")],
  cwd: "/",
  before() {
    // `npm test` built it just before (scripts/test.ts): building again would rebuild build/
    // under the servers of the browser tests running beside this file.
    if (process.env.OFFLINE_BINARY_BUILT === "1") return;
    const build = Bun.spawnSync([process.execPath, "scripts/build.ts", "--compile"], { cwd: root, stdout: "ignore", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(`npm run build failed: ${build.stderr.toString()}`);
  },
});

test("the single binary alone, on an empty data directory, serves the app and a new user signs up", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const failed: string[] = [];
  page.on("requestfailed", (r) => failed.push(`${r.failure()?.errorText} ${r.method()} ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  // Onboarding includes a photo upload, so the binary's own image processing runs too.
  await signUpAndOnboard(page, env.server.url, { email: "binary@example.com", username: "binary.user" });
  await page.getByRole("heading", { name: "Activities in Lyon" }).waitFor();
  // Styles, scripts and images all come out of the binary.
  expect(await page.evaluate(() => getComputedStyle(document.querySelector(".btn, nav a")!).display)).not.toBe("inline");
  // The uploaded photo was processed and is served by the binary; shipped images are too.
  await page.goto(`${env.server.url}/profile`);
  expect(await page.locator("[data-carousel] img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBe(1200);
  await page.goto(`${env.server.url}/profile/maya.host`);
  expect(await page.locator("[data-carousel] img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(0);
  expect(failed).toEqual([] as string[]);
  await page.close();
});

test("the binary answers a folder under /static/ and oversized bodies with clear errors", async () => {
  const folder = await fetch(`${env.server.url}/static/photos`);
  expect(folder.status).toBe(404);
  expect(((await folder.json()) as { message: string }).message).toBe("Not found");
  const big = await fetch(`${env.server.url}/api/login`, { method: "POST", body: "x".repeat(100_000), headers: { "content-type": "application/json" } });
  expect(big.status).toBe(413);
  expect(((await big.json()) as { message: string }).message).toBe("This request is too large.");
  // Over the largest route limit, the server itself refuses the body.
  const huge = await fetch(`${env.server.url}/api/login`, { method: "POST", body: new Uint8Array(12 * 1024 * 1024), headers: { "content-type": "application/json" } });
  expect(huge.status).toBe(413);
});

test("the binary serves its built files compressed at build time", async () => {
  const manifest = (await Bun.file(join(root, "build/manifest.json")).json()) as { css: string; files: Record<string, string> };
  const res = await fetch(`${env.server.url}${manifest.css}`, { headers: { "Accept-Encoding": "br" }, decompress: false });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-encoding")).toBe("br");
  expect(res.headers.get("content-type")).toStartWith("text/css");
  expect(res.headers.get("vary")).toBe("Accept-Encoding");
  const body = new Uint8Array(await res.arrayBuffer());
  expect(Number(res.headers.get("content-length"))).toBe(body.length);
  const original = await Bun.file(join(root, manifest.files[manifest.css]!)).bytes();
  expect(new Uint8Array(brotliDecompressSync(body))).toEqual(original);
  expect(body.length).toBeLessThan(original.length / 2);
});

test("the binary serves the service worker it was built with, and every file it stores on install", async () => {
  const worker = await fetch(`${env.server.url}/sw.js`);
  expect(worker.status).toBe(200);
  const code = await worker.text();
  expect(code).toBe(await Bun.file(join(root, "build/public/sw.js")).text());
  const precache = JSON.parse(/\["\/assets\/[^\]]*\]/.exec(code)![0]) as string[];
  for (const url of precache) {
    const res = await fetch(`${env.server.url}${url}`);
    expect({ url, status: res.status }).toEqual({ url, status: 200 });
  }
});
