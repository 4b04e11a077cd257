import { expect, test } from "bun:test";
import { signUpAndOnboard } from "./flows";
import { serverAndBrowser } from "./harness";

// PUBLIC_URL says localhost; the browser opens the app at 127.0.0.1, as a phone on the LAN would
// use the machine's address.
const env = serverAndBrowser({ publicHost: "localhost", env: { DEMO_DATA: "false" } });

test("the app opened at another address than PUBLIC_URL completes onboarding with a photo upload", async () => {
  expect(env.server.url).toStartWith("http://127.0.0.1:");
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  // Requests cut short by moving to the next page (ERR_ABORTED) are not failures.
  page.on("requestfailed", (r) => r.failure()?.errorText !== "net::ERR_ABORTED" && problems.push(`${r.failure()?.errorText} ${r.method()} ${r.url()}`));
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));

  await signUpAndOnboard(page, env.server.url, { email: "lan@example.com", username: "lan.user" });
  await page.goto(`${env.server.url}/profile`);
  const photo = page.locator("[data-carousel] img").first();
  expect(await photo.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBe(1200);

  // Nothing was fetched from PUBLIC_URL's address, and nothing was refused on the way.
  expect(requested.filter((url) => !url.startsWith(env.server.url) && !url.startsWith("data:"))).toEqual([]);
  expect(requested.some((url) => url.includes("/api/uploads/"))).toBe(true);
  expect(problems).toEqual([]);
  await page.close();
});
