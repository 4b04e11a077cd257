/**
 * "Download my data" on a phone (docs/decisions/0056): Settings at 360 px, the button saves a file
 * the browser downloads, and the file is a zip or JSON holding the person's profile; in English
 * and in French.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { strFromU8, unzipSync } from "fflate";
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
