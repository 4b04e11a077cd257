import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { signUpAndOnboard } from "./flows";
import { launchBrowser, startServer } from "./harness";

const root = join(import.meta.dir, "../..");
let server: Awaited<ReturnType<typeof startServer>>;
let browser: Browser;

beforeAll(async () => {
  const build = Bun.spawnSync([process.execPath, "scripts/build.ts", "--compile"], { cwd: root, stdout: "ignore", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`npm run build failed: ${build.stderr.toString()}`);
  // Run from another folder so nothing can be read from the checkout by accident.
  server = await startServer({ command: [join(root, "dist/offline")], cwd: "/" });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("the single binary alone, on an empty data directory, serves the app and a new user signs up", async () => {
  const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
  const failed: string[] = [];
  page.on("requestfailed", (r) => failed.push(`${r.failure()?.errorText} ${r.method()} ${r.url()}`));
  page.on("response", (r) => r.status() >= 400 && failed.push(`${r.status()} ${r.url()}`));
  // Onboarding includes a photo upload, so the binary's own image processing runs too.
  await signUpAndOnboard(page, server.url, { email: "binary@example.com", username: "binary.user" });
  await page.getByRole("heading", { name: "Activities in Lyon" }).waitFor();
  // Styles, scripts and images all come out of the binary.
  expect(await page.evaluate(() => getComputedStyle(document.querySelector(".btn, nav a")!).display)).not.toBe("inline");
  // The uploaded photo was processed and is served by the binary; shipped images are too.
  await page.goto(`${server.url}/profile`);
  expect(await page.locator("[data-carousel] img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBe(1200);
  await page.goto(`${server.url}/profile/maya.host`);
  expect(await page.locator("[data-carousel] img").first().evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBeGreaterThan(0);
  expect(failed).toEqual([] as string[]);
  await page.close();
});
