import { expect, test } from "bun:test";
import { expectAccessible, serverAndBrowser } from "./harness";
import { dateAhead, dayButton, openRequestDialog, signInAs } from "./flows";

/**
 * A host keeps weekend mornings and takes a Saturday off; a guest then sees only the weekend
 * mornings that are left, on the date-time screen and in the booking dialog. Real server,
 * real Chromium, at 360 px.
 */
const env = serverAndBrowser();

const weekday = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay();
/** The next few Saturdays and Sundays from two days on, New York wall clock. */
const weekend = Array.from({ length: 16 }, (_, i) => dateAhead(i + 2)).filter((d) => weekday(d) === 6 || weekday(d) === 0);
const [firstSaturday, secondSaturday] = weekend.filter((d) => weekday(d) === 6);

test("a host keeps weekend mornings and a Saturday off; the guest is offered only what is left", async () => {
  const host = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  host.on("pageerror", (e) => errors.push(e.message));
  await signInAs(host, env.server.url, "host@offline.test");
  const list = (await (await host.request.get(`${env.server.url}/api/user/activities`)).json()) as { id: string; title: string; city: string; duration: string; format: string }[];
  const activity = list.find((a) => a.city === "New York" && a.format === "private" && Number(a.duration) <= 1) ?? list.find((a) => a.city === "New York" && a.format === "private")!;
  // The dashboard leads to the Availability screen, which shows the week and takes a day off.
  await host.goto(`${env.server.url}/host`);
  await host.getByRole("link", { name: "Availability" }).click();
  await host.waitForURL(`${env.server.url}/host/availability`);
  // Weekend mornings, on the plain form behind "Edit hours" (the wizard's step has its own test).
  await host.getByRole("link", { name: `Edit hours for ${activity.title}` }).click();
  await host.getByLabel("Set weekly hours").check();
  await host.getByLabel("Saturday").fill("09:00-12:00");
  await host.getByLabel("Sunday").fill("09:00-13:00, 12:00-14:00");
  await host.getByRole("button", { name: "Save hours" }).click();
  await host.getByText("Sunday: two ranges overlap.").first().waitFor();
  await host.getByLabel("Sunday").fill("09:00-12:00");
  await host.getByRole("button", { name: "Save hours" }).click();
  await host.getByText("Guests now see only these times.").waitFor();
  const card = host.locator(`[data-activity-hours="${activity.id}"]`);
  await card.getByText("9:00 AM–12:00 PM").first().waitFor();
  await host.getByLabel("Date", { exact: true }).fill(firstSaturday!);
  await host.getByLabel("Note (only you see it)").fill("Family day");
  await host.getByRole("button", { name: "Add" }).click();
  await host.getByText("Guests can no longer book you then.").waitFor();
  await host.getByText("Family day").waitFor();
  expect(await host.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectAccessible(host, "availability screen");

  // The guest: the calendar offers the weekend days but the Saturday off, and only mornings.
  const guest = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  guest.on("pageerror", (e) => errors.push(e.message));
  await signInAs(guest, env.server.url, "guest@offline.test");
  await guest.goto(`${env.server.url}/booking/${activity.id}/date-time`);
  await guest.locator("[data-hydrated]").waitFor();
  expect(await (await dayButton(guest, firstSaturday!)).isDisabled()).toBe(true);
  const monday = Array.from({ length: 9 }, (_, i) => dateAhead(i + 2)).find((d) => weekday(d) === 1)!;
  expect(await (await dayButton(guest, monday)).isDisabled()).toBe(true);
  await guest.goto(`${env.server.url}/booking/${activity.id}/date-time`);
  await guest.locator("[data-hydrated]").waitFor();
  const saturday = await dayButton(guest, secondSaturday!);
  expect(await saturday.isDisabled()).toBe(false);
  await saturday.click();
  const open = await guest.locator("button[data-time]:not([disabled])").evaluateAll((buttons) => buttons.map((b) => b.getAttribute("data-time")));
  expect(open).toEqual(["09:00", "10:00", "11:00"]);
  await expectAccessible(guest, "date-time screen with weekly hours");

  // The booking dialog on the activity page offers the same dates and, once one is chosen, its hours.
  await guest.goto(`${env.server.url}/activity/${activity.id}`);
  await openRequestDialog(guest);
  const dates = await guest.locator("#rq-date option[value]:not([value=''])").evaluateAll((options) => options.map((o) => o.getAttribute("value")));
  expect(dates.length).toBeGreaterThan(0);
  expect(dates.every((d) => [0, 6].includes(new Date(`${d}T12:00:00Z`).getUTCDay()))).toBe(true);
  expect(dates).not.toContain(firstSaturday);
  await guest.locator("#rq-date").selectOption(secondSaturday!);
  const hours = await guest.locator("#rq-time option[value]:not([value='']):not([disabled])").evaluateAll((options) => options.map((o) => o.getAttribute("value")));
  expect(hours).toEqual(["09:00", "10:00", "11:00"]);

  expect(errors).toEqual([]);
  await host.close();
  await guest.close();
});
