import { expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { closeDb, one } from "../../db/client";
import { openDatabaseOf } from "../helpers";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { bookingRow, insert } from "../../src/demo/factories";
import { activities, users } from "../../db/schema";
import { expectAccessible, serverAndBrowser } from "./harness";
import { signInAs } from "./flows";

/**
 * Reviews and reports in real Chromium: a guest reviews a completed booking with the keyboard,
 * then reports an activity, which an operator dismisses.
 */
const OPERATOR_EMAIL = "james@offline.test";
const env = serverAndBrowser({ env: { ADMIN_EMAILS: OPERATOR_EMAIL } });
const HOUR = 60 * 60 * 1000;

const signIn = (page: Page, email: string) => signInAs(page, env.server.url, email);

/** The running server's database, opened alongside it (SQLite in WAL mode lets both in; or its PostgreSQL database). */
const serverDb = () => openDatabaseOf(env.server.dataDir);

/** One of the demo host's activities and the demo guest. */
async function demoPair() {
  const db = await serverDb();
  const guest = (await one(db.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
  const host = (await one(db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
  const activity = (await one(db.select().from(activities).where(and(eq(activities.hostId, host.id), eq(activities.city, "New York")))))!;
  return { db, guest, host, activity };
}

test("a guest leaves a review after a completed activity, choosing the stars with the keyboard", async () => {
  const { db, guest, activity } = await demoPair();
  // Finished an hour ago.
  const startsAt = Math.floor((Date.now() - 3 * HOUR) / HOUR) * HOUR;
  const booking = await insert(db).booking({ ...bookingRow(activity, { guestId: guest.id, startsAt, status: "completed" }), completedAt: Date.now() - HOUR });
  await closeDb(db);

  const page = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signIn(page, DEMO_GUEST_EMAIL);
  await page.goto(`${env.server.url}/bookings`);
  await page.locator(`[data-booking="${booking.id}"]`).getByRole("link", { name: "Leave a Review" }).click();
  await page.waitForURL(/\/review\?bookingId=/);
  await page.getByRole("heading", { name: "Leave a Review" }).waitFor();
  expect(await page.locator("[data-activity-title]").textContent()).toBe(activity.title);
  const stars = page.getByRole("group", { name: "Rate your experience with Maya" });
  await stars.waitFor();
  const submit = page.getByRole("button", { name: "Submit Review" });
  // No rating yet: submitting is not possible, and the page says why.
  expect(await submit.isDisabled()).toBe(true);
  expect(await page.getByText("Select a star rating before submitting").isVisible()).toBe(true);
  await expectAccessible(page, "the review screen");

  // Keyboard: into the star group, then the arrow keys move the rating.
  await page.getByRole("radio", { name: "1 out of 5 stars" }).focus();
  await page.keyboard.press("Space");
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  expect(await page.getByRole("radio", { name: "4 out of 5 stars" }).isChecked()).toBe(true);
  expect(await page.getByText("Select a star rating before submitting").isVisible()).toBe(false);
  expect(await submit.isEnabled()).toBe(true);
  await page.getByLabel("Comment (optional)").fill("Great coach!");
  await page.getByText("12/500 characters").waitFor();
  await submit.click();

  await page.waitForURL(`${env.server.url}/bookings`);
  await page.getByText("Review Submitted").waitFor();
  expect(await page.getByText("Thank you for your feedback!").count()).toBe(1);
  expect(await page.locator(`[data-booking="${booking.id}"]`).getByRole("link", { name: "Leave a Review" }).count()).toBe(0);

  // Double-blind: the guest sees it as hidden until the host answers.
  await page.goto(`${env.server.url}/reviews`);
  await page.getByText("Great coach!").waitFor();
  expect(await page.getByText(/Visible once Maya has reviewed you or on /).count()).toBeGreaterThan(0);
  await expectAccessible(page, "my reviews");
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

test("a guest reports an activity; an operator sees it and dismisses it", async () => {
  const { db, activity } = await demoPair();
  await closeDb(db);

  const guestPage = await env.browser.newPage({ viewport: { width: 360, height: 740 } });
  const errors: string[] = [];
  guestPage.on("pageerror", (e) => errors.push(e.message));
  await signIn(guestPage, DEMO_GUEST_EMAIL);
  await guestPage.goto(`${env.server.url}/activity/${activity.id}`);
  await guestPage.getByText("Report this activity").click();
  await guestPage.getByRole("group", { name: "Why are you reporting this activity?" }).waitFor();
  await guestPage.getByLabel("Scam or fraud").check();
  await guestPage.getByLabel("Notes (optional)").fill("Asked me to pay outside the app.");
  await expectAccessible(guestPage, "the activity page with the report form open");
  await guestPage.getByRole("button", { name: "Send report" }).click();
  // htmx puts the confirmation where the form was.
  await guestPage.locator("[data-report-sent]").waitFor();
  expect(await guestPage.locator("[data-report-sent]").textContent()).toContain("Report sent");
  await guestPage.close();

  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const operatorPage = await context.newPage();
  operatorPage.on("pageerror", (e) => errors.push(e.message));
  await signIn(operatorPage, OPERATOR_EMAIL);
  await operatorPage.goto(`${env.server.url}/admin/reports`);
  const card = operatorPage.locator("[data-report-id]").filter({ hasText: "Asked me to pay outside the app." });
  await card.waitFor();
  expect(await card.textContent()).toContain("Scam or fraud");
  expect(await card.getByRole("link", { name: activity.title }).count()).toBe(1);
  await expectAccessible(operatorPage, "the operators' reports page");
  await card.getByRole("button", { name: "Dismiss" }).click();
  await operatorPage.getByText("The report was dismissed.").waitFor();
  expect(await operatorPage.locator("[data-report-id]").filter({ hasText: "Asked me to pay outside the app." }).count()).toBe(0);
  expect(await operatorPage.locator("[data-handled-report]").first().textContent()).toContain("Dismissed by James");
  await context.close();

  // Anyone else: the page does not exist.
  const other = await env.browser.newPage();
  await signIn(other, DEMO_GUEST_EMAIL);
  expect((await other.goto(`${env.server.url}/admin/reports`))!.status()).toBe(404);
  await other.close();
  expect(errors).toEqual([]);
}, 60_000);
