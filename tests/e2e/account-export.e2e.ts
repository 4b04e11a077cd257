/**
 * "Download my data" on a phone (docs/decisions/0056): Settings at 360 px, the button saves a file
 * the browser downloads, and the file is a zip or JSON holding the person's profile; in English
 * and in French. A large account's copy: Settings says it is being prepared, the emailed link's
 * page downloads it once.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { strFromU8, unzipSync } from "fflate";
import { waitForOutboxEmail } from "../helpers";
import { signInAs } from "./flows";
import { expectAccessible, serverAndBrowser } from "./harness";

const env = serverAndBrowser();

/** `data.json` of a downloaded copy, a zip or the JSON alone. */
function dataOf(bytes: Uint8Array): Record<string, any> {
  // A zip starts with its local file header's signature, "PK\x03\x04".
  if (bytes[0] === 0x50 && bytes[1] === 0x4b) return JSON.parse(strFromU8(unzipSync(bytes)["data.json"]!));
  return JSON.parse(strFromU8(bytes));
}

for (const [locale, button, title] of [
  ["en-US", "Download my data", "Your data"],
  ["fr-FR", "Télécharger mes données", "Vos données"],
] as const) {
  test(`the demo guest downloads their data from Settings at 360 px (${locale})`, async () => {
    const context = await env.browser.newContext({ viewport: { width: 360, height: 740 }, locale, acceptDownloads: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signInAs(page, env.server.url, "guest@offline.test");
    await page.goto(`${env.server.url}/settings`);
    await page.getByRole("region", { name: title }).waitFor();
    const download = page.getByRole("button", { name: button });
    await download.scrollIntoViewIfNeeded();
    await expectAccessible(page, `settings with the data card (${locale})`);

    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    expect(file.suggestedFilename()).toMatch(/^offline-data-[a-z0-9_-]+-\d{4}-\d{2}-\d{2}\.(zip|json)$/);
    const data = dataOf(new Uint8Array(readFileSync((await file.path())!)));
    expect(data.format).toBe("offline-data-export/1");
    expect(data.profile.email).toBe("guest@offline.test");
    expect(data.bookings.asGuest.length).toBeGreaterThan(0);
    // The page stayed where it was, and still works.
    expect(new URL(page.url()).pathname).toBe("/settings");
    await download.waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
}

describe("a large account's copy", () => {
  // Every account is large here: each copy is prepared by the job and its link emailed.
  const large = serverAndBrowser({ env: { EXPORT_AT_ONCE_MAX_ROWS: "0" } });

  test("Settings says it is being prepared; the emailed link's page downloads it once, at 360 px", async () => {
    const context = await large.browser.newContext({ viewport: { width: 360, height: 740 }, acceptDownloads: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await signInAs(page, large.server.url, "guest@offline.test");
    await page.goto(`${large.server.url}/settings`);
    await page.getByRole("button", { name: "Download my data" }).click();
    await page.waitForURL(/\/settings#data-export$/);
    await page.getByText("We are preparing your copy and will email you a link.").first().waitFor();
    await expectAccessible(page, "settings, a copy being prepared");

    const mail = await waitForOutboxEmail(large.server.dataDir, "guest@offline.test", "data-export");
    const link = mail.links.find((l) => l.includes("/account/export/"))!;
    await page.goto(link);
    await page.getByRole("heading", { name: "Your copy of your data" }).waitFor();
    await expectAccessible(page, "the emailed link's page");
    const [file] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download the file" }).click()]);
    const data = dataOf(new Uint8Array(readFileSync((await file.path())!)));
    expect(data.profile.email).toBe("guest@offline.test");

    // Once only.
    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    await page.getByRole("heading", { name: "This link no longer works" }).waitFor();
    await expectAccessible(page, "a used link");
    expect(errors).toEqual([]);
    await context.close();
  });
});
