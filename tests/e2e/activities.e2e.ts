import { expect, test } from "bun:test";
import { makeJpeg } from "../images";
import { startFakeMaps } from "../fakes/maps";
import { expectAccessible, serverAndBrowser } from "./harness";
import type { Page } from "playwright-core";
import { signInAs } from "./flows";

// Default map settings point at OpenStreetMap, which this machine cannot reach: the fallback.
const env = serverAndBrowser();

const signIn = (page: Page, email: string) => signInAs(page, env.server.url, email);

test("browse: filtering by category swaps the list and updates the URL; back restores it", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "guest@offline.test");
  await page.getByRole("heading", { name: "Activities in New York" }).waitFor();
  const allCount = await page.locator("#results > p").textContent();
  // While a filter change loads, six skeleton cards stand in for the list.
  await page.route("**/browse?*", async (route) => {
    await new Promise((r) => setTimeout(r, 600));
    await route.continue();
  });
  await page.getByText("Filters").click();
  await page.getByRole("navigation", { name: "Categories" }).getByRole("link", { name: "Food" }).click();
  await page.locator(".browse-skeletons").waitFor({ state: "visible" });
  expect(await page.locator(".browse-skeletons > li").count()).toBe(6);
  await page.waitForURL(/category=food/);
  // The grid closes on a pick (the results stay on a phone's screen); its summary names the category.
  await page.locator("#browse summary", { hasText: "Filters · Food" }).waitFor();
  expect(await page.locator('#categories a[aria-current="true"]').textContent()).toBe("Food");
  await page.waitForFunction((before) => document.querySelector("#results > p")?.textContent !== before, allCount);
  const cards = page.locator("#results a[href^='/activity/']");
  expect(await cards.count()).toBeGreaterThan(0);
  expect(await page.locator("html").getAttribute("lang")).toBe("en"); // the page itself was not reloaded
  await page.getByLabel("City").selectOption("Paris");
  await page.waitForURL(/city=Paris/);
  expect(page.url()).toContain("category=food");
  await page.getByRole("heading", { name: "Activities in Paris" }).waitFor();
  await expectAccessible(page, "browse filtered");
  await page.goBack();
  await page.waitForURL(/city=New\+York&category=food/);
  await page.getByRole("heading", { name: "Activities in New York" }).waitFor();
  await page.goto(`${env.server.url}/browse?city=Paris&category=food`); // a shared link works on its own
  expect(await page.locator("#results > p").textContent()).toMatch(/found/);
  await page.close();
});

test("a host creates an activity through the eight wizard steps, sees it, edits it and deletes it", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signIn(page, "host@offline.test");
  await page.goto(`${env.server.url}/host`);
  await page.getByRole("link", { name: "Create Activity" }).first().click();
  await page.waitForURL(/create-activity-flow/);
  await page.locator("[data-hydrated]").waitFor();
  const next = page.getByRole("button", { name: "Next" });

  expect(await next.isDisabled()).toBe(true);
  await expectAccessible(page, "wizard step 1");
  await page.getByRole("radio", { name: "Music" }).click();
  await next.click();

  await page.getByRole("button", { name: "Get tips" }).click();
  await page.getByRole("dialog", { name: "Tips for a great title" }).waitFor();
  await expectAccessible(page, "wizard tips");
  await page.getByRole("dialog").getByRole("button", { name: "Close" }).click();
  expect(await next.isDisabled()).toBe(true);
  await page.getByLabel("Title").fill("   ");
  expect(await next.isDisabled()).toBe(true);
  await page.getByLabel("Title").fill("Ukulele in the park");
  await page.getByText("19/50 characters").waitFor();
  await expectAccessible(page, "wizard step 2");
  await next.click();

  await page.getByLabel("Description").fill("Learn four chords and play a song together. Ukuleles provided.");
  await next.click();

  expect(await next.isDisabled()).toBe(true);
  await page.getByLabel("Hourly rate (USD)").fill("35");
  await page.getByText("See your earnings").click();
  expect(await page.locator("[data-earnings]").textContent()).toBe("$28.00");
  await expectAccessible(page, "wizard step 4 with earnings");
  await next.click();

  expect(await next.isDisabled()).toBe(true);
  await page.locator("input[data-photo-input]").first().setInputFiles({ name: "uke.jpg", mimeType: "image/jpeg", buffer: Buffer.from(await makeJpeg({ width: 1000, height: 800 })) });
  await page.locator("img[data-photo]").first().waitFor();
  await expectAccessible(page, "wizard step 5 with a photo");
  await next.click();

  await page.getByRole("button", { name: "Longer — Minimum" }).click(); // 1 h 30
  await page.getByRole("switch").check();
  await page.getByText("2 h").waitFor();
  await expectAccessible(page, "wizard step 6");
  await next.click();

  // Availability: weekend mornings, Saturday and Sunday 09:00–12:00.
  await page.getByText("Step 7 of 8").waitFor();
  await page.getByRole("heading", { name: "Availability" }).waitFor();
  expect(await page.getByLabel("Any day, starts from 8:00 AM to 10:00 PM").isChecked()).toBe(true);
  await page.getByLabel("Set weekly hours").check();
  expect(await page.getByText("Closed").count()).toBe(7);
  expect(await next.isDisabled()).toBe(true); // every day closed
  await page.getByText("Add hours to at least one day, or choose any day.").waitFor();
  for (const day of ["Saturday", "Sunday"]) {
    await page.getByRole("button", { name: `Add hours on ${day}` }).click();
    await page.getByLabel(`${day}, range 1: to`).selectOption({ label: "12:00 PM" });
  }
  // A range that ends before it starts holds the step back until it is put right.
  await page.getByLabel("Sunday, range 1: from").selectOption({ label: "1:00 PM" });
  await page.getByText("Sunday: a range ends before it starts.").waitFor();
  expect(await next.isDisabled()).toBe(true);
  await page.getByLabel("Sunday, range 1: from").selectOption({ label: "9:00 AM" });
  expect(await next.isDisabled()).toBe(false);
  await page.getByLabel("Minimum notice").selectOption({ label: "1 day before" });
  await page.getByLabel("Book up to").selectOption({ label: "30 days ahead" });
  await page.getByLabel("Instant booking").check();
  await page.getByText("Paid requests are accepted at once; you can still cancel with a full refund to the guest.").waitFor();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectAccessible(page, "wizard step 7, availability");
  await next.click();

  await page.getByText("Your activity takes place in New York, United States.").waitFor();
  await page.getByLabel("Set the meeting point now").check();
  await page.getByLabel("Meeting point address").fill("Sheep Meadow, Central Park");
  await expectAccessible(page, "wizard step 8");
  await page.getByRole("button", { name: "Create" }).click();
  await page.waitForURL(`${env.server.url}/host`);
  await page.getByText("Activity created successfully!").waitFor();
  await page.getByText("Ukulele in the park").first().waitFor();
  await expectAccessible(page, "host dashboard with a toast");

  // In browse, and on its own page.
  await page.goto(`${env.server.url}/browse?city=New%20York&category=music`);
  await page.getByText("Ukulele in the park").click();
  await page.getByRole("heading", { name: "Ukulele in the park" }).waitFor();
  await page.getByText("1.5 h to 2 h").waitFor();
  await page.getByText("Sheep Meadow, Central Park").waitFor();
  await page.getByText("Available: Sat, Sun 9:00 AM–12:00 PM").waitFor();
  await page.getByText("Instant booking", { exact: true }).waitFor();
  await expectAccessible(page, "activity page");

  // Edit: the wizard comes back filled in.
  await page.getByRole("link", { name: "Edit activity" }).click();
  await page.waitForURL(/edit-activity/);
  await page.locator("[data-hydrated]").waitFor();
  expect(await page.getByRole("radio", { name: "Music" }).getAttribute("aria-checked")).toBe("true");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Title").fill("Ukulele for everyone");
  for (let i = 0; i < 5; i++) await page.getByRole("button", { name: "Next" }).click();
  // The saved availability comes back; "any day" puts the hours back to none.
  await page.getByRole("heading", { name: "Availability" }).waitFor();
  expect(await page.getByLabel("Set weekly hours").isChecked()).toBe(true);
  expect(await page.getByLabel("Saturday, range 1: from").inputValue()).toBe("540");
  expect(await page.getByLabel("Instant booking").isChecked()).toBe(true);
  await page.getByLabel("Any day, starts from 8:00 AM to 10:00 PM").check();
  await page.getByLabel("Instant booking").uncheck();
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByRole("button", { name: "Update" }).click();
  await page.waitForURL(`${env.server.url}/host`);
  await page.getByText("Activity updated successfully!").waitFor();
  await page.getByText("Ukulele for everyone").first().waitFor();
  const edited = await page.evaluate(async () => ((await (await fetch("/api/user/activities")).json()) as { title: string; weeklyHours: unknown; instantBooking: boolean; noticeMinutes: number; horizonDays: number }[]).find((a) => a.title === "Ukulele for everyone"));
  expect(edited).toMatchObject({ weeklyHours: null, instantBooking: false, noticeMinutes: 1440, horizonDays: 30 });

  // Delete, after the browser's confirmation.
  await page.getByRole("link", { name: "Edit Ukulele for everyone" }).click();
  await page.locator("[data-hydrated]").waitFor();
  await page.getByRole("radio", { name: "Music" }).click();
  for (let i = 0; i < 7; i++) await page.getByRole("button", { name: "Next" }).click();
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Delete activity" }).click();
  await page.waitForURL(`${env.server.url}/host`);
  await page.getByText("Activity deleted successfully!").waitFor();
  expect(await page.getByText("Ukulele for everyone").count()).toBe(0);
  expect(errors).toEqual([]);
  await page.close();
});

test("the create form publishes an activity with the spec's messages", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "host@offline.test");
  await page.goto(`${env.server.url}/create-activity`);
  await page.getByLabel("Title").fill("Morning sketch walk");
  await page.getByLabel("Description").fill("We draw the city as it wakes up.");
  await page.getByLabel("Category").selectOption("art");
  await page.getByRole("button", { name: "Create Activity" }).click();
  await page.getByText("Hourly rate is required").first().waitFor();
  await expectAccessible(page, "create form with errors");
  await page.getByLabel("Hourly rate (USD)").fill("22.50");
  await page.getByRole("button", { name: "Create Activity" }).click();
  await page.waitForURL(`${env.server.url}/host-dashboard`);
  await page.getByText("Activity created successfully!").waitFor();
  await page.close();
});

test("the activity page keeps the address and a link when the map cannot load", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signIn(page, "guest@offline.test");
  await page.getByText("Tennis lesson for beginners").click();
  await page.getByText("Central Park Tennis Center").waitFor();
  // The map loads once it is scrolled into view.
  await page.getByRole("link", { name: "Open in OpenStreetMap" }).scrollIntoViewIfNeeded();
  await page.locator('[data-map-state="failed"]').waitFor({ state: "attached", timeout: 15000 });
  expect(await page.getByRole("link", { name: "Open in OpenStreetMap" }).getAttribute("href")).toContain("Central%20Park%20Tennis%20Center");
  expect(await page.getByRole("link", { name: "Request & Pay" }).isVisible()).toBe(true);
  await page.close();
});

test("text that looks like HTML: the map and the edit wizard still mount, with the text as typed", async () => {
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => (m.type() === "error" && m.text().includes("failed to mount") ? errors.push(m.text()) : undefined));
  await signIn(page, "host@offline.test");
  const title = "Central Park&quot;}";
  const meetingPoint = "Central Park&quot;,&quot;injected&quot;:&quot;by-host";
  const id = await page.evaluate(
    async ({ title, meetingPoint }) => {
      const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')!.content;
      const body = { title, description: "R&amp;D <b>walk</b>", category: "outdoor", hourlyRate: "20", hasMeetingPoint: true, meetingPoint };
      const res = await fetch("/api/activities", { method: "POST", headers: { "content-type": "application/json", "x-csrf-token": csrf }, body: JSON.stringify(body) });
      return ((await res.json()) as { id: string }).id;
    },
    { title, meetingPoint },
  );

  await page.goto(`${env.server.url}/activity/${id}`);
  await page.getByRole("heading", { name: title }).waitFor();
  await page.getByRole("link", { name: "Open in OpenStreetMap" }).scrollIntoViewIfNeeded();
  await page.locator("[data-map-state]").waitFor({ state: "attached", timeout: 15000 }); // the map island mounted
  const props = await page.locator('[data-island="ActivityMap"]').evaluate((el) => JSON.parse((el as HTMLElement).dataset.props!) as Record<string, unknown>);
  expect(props.injected).toBeUndefined();
  expect(props.query).toBe(`${meetingPoint}, New York, United States`);
  await page.getByText(meetingPoint, { exact: true }).waitFor();

  await page.goto(`${env.server.url}/edit-activity/${id}`);
  await page.locator("[data-hydrated]").waitFor();
  await page.getByRole("button", { name: "Next" }).click();
  expect(await page.getByLabel("Title").inputValue()).toBe(title);
  await page.getByRole("button", { name: "Next" }).click();
  expect(await page.getByLabel("Description").inputValue()).toBe("R&amp;D <b>walk</b>");
  expect(errors).toEqual([]);
  await page.close();
});

test("with a reachable tile server the map shows the meeting point", async () => {
  const maps = await startFakeMaps();
  const { startServer } = await import("./harness");
  const server = await startServer({ env: maps.env });
  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  await signInAs(page, server.url, "guest@offline.test");
  const requested: string[] = [];
  page.on("request", (r) => void requested.push(new URL(r.url()).pathname));
  await page.getByText("Tennis lesson for beginners").click();
  // A screen ahead of the viewport the island mounts with an empty box; the geocoder, Leaflet, its
  // stylesheet and the tiles wait until the box is scrolled into view.
  await page.locator('[data-map-state="loading"]').waitFor({ state: "attached", timeout: 15000 });
  expect(maps.searches).toEqual([]);
  expect(await page.locator('link[rel="stylesheet"][href*="leaflet"]').count()).toBe(0);
  const before = requested.length;
  await page.getByRole("link", { name: "Open in OpenStreetMap" }).scrollIntoViewIfNeeded();
  await page.locator('[data-map-state="ready"]').waitFor({ timeout: 15000 });
  expect(await page.locator(".leaflet-tile-loaded").count()).toBeGreaterThan(0);
  const afterScrolling = requested.slice(before);
  expect(afterScrolling.some((p) => p.endsWith(".js"))).toBe(true); // Leaflet's chunk
  expect(afterScrolling.some((p) => p.includes("leaflet") && p.endsWith(".css"))).toBe(true);
  await expectAccessible(page, "activity page with its map");
  expect(maps.searches.some((q) => q.startsWith("Central Park Tennis Center"))).toBe(true);
  await page.close();
  await server.stop();
  void maps.stop();
});
