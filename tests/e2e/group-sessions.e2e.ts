import { expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { makeJpeg } from "../images";
import { expectAccessible, serverAndBrowser } from "./harness";
import { dateAhead, openRequestDialog, signInAs } from "./flows";

/**
 * Group sessions in a real browser on a phone's width (docs/decisions/0049): a host creates a group
 * class in the wizard; two guests take 3 and 2 of its 6 spots through the booking dialog and the
 * hosted test checkout; the dialog then says "1 spot left", and a third guest asking for 2 is
 * refused before paying.
 */
const env = serverAndBrowser();
const PHONE = { width: 360, height: 740 };
const TITLE = "Dumplings for six";
const date = dateAhead(12);

const phonePage = async (email: string) => {
  const page = await env.browser.newPage({ viewport: PHONE });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signInAs(page, env.server.url, email);
  return { page, errors };
};

async function fillCard(page: Page, number: string) {
  await page.getByLabel("Card number").fill(number);
  await page.getByLabel("Expiry (MM/YY)").fill("12/34");
  await page.getByLabel("CVC").fill("123");
}

/** The dialog's details for the class at 19:00 on `date`, for `spots` spots. */
async function chooseSession(page: Page, activityId: string, spots: number) {
  await page.goto(`${env.server.url}/activity/${activityId}`);
  const dialog = await openRequestDialog(page);
  await dialog.getByLabel("Message to the host").fill("Hello! We would love to join.");
  await dialog.getByLabel("Date", { exact: true }).selectOption(date);
  await dialog.getByLabel("Start").selectOption("19:00");
  await dialog.getByLabel("Spots").fill(String(spots));
  return dialog;
}

/** A guest books `spots` through the dialog and pays on the hosted test checkout. */
async function bookSpots(email: string, activityId: string, spots: number, total: string) {
  const { page, errors } = await phonePage(email);
  const dialog = await chooseSession(page, activityId, spots);
  // The total follows the spots before anything is sent: spots × $30, plus the 10% fee.
  await page.waitForFunction((t) => document.querySelector("[data-request-dialog] [data-total-total]")?.textContent === t, total);
  await dialog.getByRole("button", { name: "Continue" }).click();
  await page.locator("[data-host-rating]").waitFor();
  await page.getByText(`${spots} spots`).first().waitFor();
  await page.getByRole("button", { name: `Pay ${total}` }).click();
  await page.waitForURL(/\/payments\/test\/checkout\//);
  await fillCard(page, "4242 4242 4242 4242");
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await page.waitForURL(/\/bookings$/);
  await page.getByText("Payment Successful!").waitFor();
  expect(errors).toEqual([]);
  await page.close();
}

test("a host creates a group class at 360 px; guests take 3 and 2 of 6 spots; the last spot is never oversold", async () => {
  // The host: the wizard, with the group's fields in its pricing step.
  const { page, errors } = await phonePage("host@offline.test");
  await page.goto(`${env.server.url}/host`);
  await page.getByRole("link", { name: "Create Activity" }).first().click();
  await page.waitForURL(/create-activity-flow/);
  await page.locator("[data-hydrated]").waitFor();
  const next = page.getByRole("button", { name: "Next" });
  await page.getByRole("radio", { name: "Food" }).click();
  await next.click();
  await page.getByLabel("Title").fill(TITLE);
  await next.click();
  await page.getByLabel("Description").fill("Fold and steam dumplings together; we eat them warm at the end.");
  await next.click();

  await page.getByRole("radio", { name: /^Group/ }).check();
  await page.getByLabel("Capacity (spots per session)").fill("6");
  await page.getByLabel("Price per person ($)").fill("30");
  await page.getByLabel("Session length").selectOption("120");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectAccessible(page, "wizard pricing step, group");
  await next.click();

  await page.locator("input[data-photo-input]").first().setInputFiles({ name: "dumplings.jpg", mimeType: "image/jpeg", buffer: Buffer.from(await makeJpeg({ width: 1000, height: 800 })) });
  await page.locator("img[data-photo]").first().waitFor();
  await next.click();
  // A group has no durations step: its sessions have one length. Availability as it comes (any day).
  await page.getByRole("heading", { name: "Availability" }).waitFor();
  await next.click();
  await page.getByRole("button", { name: "Create" }).click();
  await page.waitForURL(`${env.server.url}/host`);
  await page.getByText("Activity created successfully!").waitFor();
  const mine = (await (await page.request.get(`${env.server.url}/api/user/activities`)).json()) as { id: string; title: string; format: string; capacity: number; pricePerPerson: string; sessionMinutes: number }[];
  const activity = mine.find((a) => a.title === TITLE)!;
  expect(activity).toMatchObject({ format: "group", capacity: 6, pricePerPerson: "30.00", sessionMinutes: 120 });
  expect(errors).toEqual([]);
  await page.close();

  // Two guests: 3 spots, then 2.
  await bookSpots("guest@offline.test", activity.id, 3, "$99.00");
  await bookSpots("james@offline.test", activity.id, 2, "$66.00");

  // A third guest: the dialog says one spot is left, and asking for 2 is refused before paying.
  const third = await phonePage("aiko@offline.test");
  const dialog = await chooseSession(third.page, activity.id, 2);
  const start = dialog.getByLabel("Start").locator('option[value="19:00"]');
  expect(await start.textContent()).toContain("1 spot left");
  await expectAccessible(third.page, "booking dialog of a group session");
  await dialog.getByRole("button", { name: "Continue" }).click();
  await third.page.getByText("Only 1 spot is left at this time. Choose fewer spots or another time.").waitFor();
  expect(await third.page.getByRole("button", { name: /^Pay \$/ }).count()).toBe(0);
  expect(await third.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  expect(((await (await third.page.request.get(`${env.server.url}/api/bookings`)).json()) as { activityId: string }[]).filter((b) => b.activityId === activity.id)).toEqual([]);
  // The same answer from the times API the screens read: one spot left at 19:00.
  const times = (await (await third.page.request.get(`${env.server.url}/api/activities/${activity.id}/times?date=${date}`)).json()) as { start: string; open: boolean; spotsLeft: number }[];
  expect(times.find((s) => s.start === "19:00")).toEqual({ start: "19:00", open: true, spotsLeft: 1 });
  expect(third.errors).toEqual([]);
  await third.page.close();

  // The host's dashboard shows the session's roster: 5 of 6.
  const host = await phonePage("host@offline.test");
  await host.page.goto(`${env.server.url}/host`);
  await host.page.getByText("5 of 6").first().waitFor();
  await host.page.close();
}, 120_000);
