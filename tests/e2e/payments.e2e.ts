import { expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { closeDb, one, writeTransaction } from "../../db/client";
import { openDatabaseOf } from "../helpers";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { bookingRow, insert } from "../../src/demo/factories";
import { activities, jobs, users } from "../../db/schema";
import { signInAs } from "./flows";
import { expectAccessible, serverAndBrowser } from "./harness";

/**
 * What operators read of the reconciliation with the payment provider (docs/decisions/0028), in
 * real Chromium on a phone-sized screen: a booking that differs from the provider and timed work
 * that gave up, reached from the reports page, and a flagged booking marked as handled.
 */
const OPERATOR_EMAIL = "james@offline.test";
const env = serverAndBrowser({ env: { ADMIN_EMAILS: OPERATOR_EMAIL } });
const HOUR = 60 * 60 * 1000;
const ISSUE = "accepted, but 8800 of 8800 cents were refunded at the provider";

test("an operator reads what differs from the provider and marks a booking handled", async () => {
  const db = await openDatabaseOf(env.server.dataDir);
  const guest = (await one(db.select().from(users).where(eq(users.email, DEMO_GUEST_EMAIL))))!;
  const host = (await one(db.select().from(users).where(eq(users.email, DEMO_HOST_EMAIL))))!;
  const activity = (await one(db.select().from(activities).where(and(eq(activities.hostId, host.id), eq(activities.city, "New York")))))!;
  const startsAt = Math.floor((Date.now() + 72 * HOUR) / HOUR) * HOUR;
  const booking = await insert(db).booking({ ...bookingRow(activity, { guestId: guest.id, startsAt, status: "accepted" }), paymentIntentId: "tpi_flagged_in_e2e", paymentIssue: ISSUE });
  await writeTransaction(db, (tx) => tx.insert(jobs).values({ id: crypto.randomUUID(), kind: "booking.recover", key: `booking.recover:${booking.id}:1`, payload: { bookingId: booking.id }, runAt: Date.now(), attempts: 12, lastError: "The payment service did not answer in time.", failedAt: Date.now() }));
  await closeDb(db);

  const context = await env.browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await signInAs(page, env.server.url, OPERATOR_EMAIL);
  await page.goto(`${env.server.url}/admin/reports`);
  await page.getByRole("link", { name: "Payments needing attention" }).click();
  await page.waitForURL(/\/admin\/payments$/);
  await page.getByRole("heading", { name: "Payments needing attention", level: 1 }).waitFor();
  const card = page.locator(`[data-booking-id="${booking.id}"]`);
  expect(await card.textContent()).toContain(ISSUE);
  expect(await page.getByRole("region", { name: "Timed work that gave up" }).textContent()).toContain("The payment service did not answer in time.");
  // Long ids wrap: nothing is wider than the phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectAccessible(page, "the operators' payments page");

  await card.getByRole("button", { name: "Mark as handled" }).click();
  await page.getByText("The booking is compared with the provider again from now on.").waitFor();
  expect(await page.locator(`[data-booking-id="${booking.id}"]`).count()).toBe(0);
  await page.getByText("Every open booking agrees with the payment provider.").waitFor();
  await context.close();

  // Anyone else: the page does not exist.
  const other = await env.browser.newPage();
  await signInAs(other, env.server.url, DEMO_GUEST_EMAIL);
  expect((await other.goto(`${env.server.url}/admin/payments`))!.status()).toBe(404);
  await other.close();
  expect(errors).toEqual([]);
}, 60_000);
