import { one } from "../../db/client";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { bookings } from "../../db/schema";
import { DEMO_GUEST_EMAIL, DEMO_HOST_EMAIL } from "../../src/demo/demo-data";
import { makeTestApp } from "../helpers";
import { signInContext } from "./flows";
import { closeContexts, expectAccessible, sharedBrowser } from "./harness";

/**
 * The live chat in Chromium, two people in two browser contexts: the host accepts a paid request
 * from the conversation, the guest's open conversation follows without a reload (status, banner,
 * cards, chat opening), they write to each other live both ways with 'Seen', the unread count
 * follows, and once the activity has started (the server's clock moved) the host marks it
 * complete and the guest sees that too. The app runs in this process, on a clock the test moves.
 */
let clock = Date.now();
let t: Awaited<ReturnType<typeof makeTestApp>>;
let url: string;
let browser: Browser;

beforeAll(async () => {
  t = await makeTestApp({ demo: true, now: () => clock });
  t.app.listen({ port: 0, hostname: "127.0.0.1" });
  url = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await sharedBrowser();
});
afterAll(async () => {
  await closeContexts(browser);
  await t?.app.stop(true);
  t?.cleanup();
});

/** A signed-in person in a context of their own (a phone-sized screen); returns the context and its CSRF token. */
async function person(email: string) {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const csrf = await signInContext(context, url, email);
  return { context, csrf };
}

async function open(context: BrowserContext, path: string) {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${url}${path}`);
  return { page, errors };
}

/** The chat island is mounted and its socket subscribed. */
const live = (page: Page) => page.locator('[data-island="Chat"] [data-link="open"]').waitFor({ state: "attached" });

const dayAhead = (days: number) => new Intl.DateTimeFormat("sv-SE", { timeZone: "America/New_York" }).format(clock + days * 86_400_000);

test("a host accepts from the conversation; the two chat live; the host completes after the start", async () => {
  const host = await person(DEMO_HOST_EMAIL);
  const guest = await person(DEMO_GUEST_EMAIL);

  // The guest sends a paid request for one of the host's New York activities.
  const activities = (await (await host.context.request.get(`${url}/api/user/activities`)).json()) as { id: string; duration: string; city: string; hourlyRate: string; format: string }[];
  const activity = activities.find((a) => Number(a.duration) <= 1 && a.city === "New York" && a.format === "private")!;
  const date = dayAhead(3);
  const amount = (Math.round(Math.round(Number(activity.hourlyRate) * 100) * 1.1) / 100).toFixed(2);
  const headers = { "x-csrf-token": guest.csrf, origin: url };
  const intent = (await (await guest.context.request.post(`${url}/api/create-payment-intent`, { data: { amount, metadata: { activityId: activity.id, date, time: "10:00", duration: "1" } }, headers })).json()) as Record<string, string>;
  await guest.context.request.post(`${url}/api/payments/test/confirm`, { data: { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/34", cvc: "123" }, headers });
  const made = await guest.context.request.post(`${url}/api/bookings`, { data: { activityId: activity.id, proposedDatetime: `${date}T10:00:00`, durationHours: 1, priceTotal: amount, paymentIntentId: intent.paymentIntentId }, headers });
  expect(made.status()).toBe(201);
  const bookingId = ((await made.json()) as { id: string }).id;
  const conversation = `/bookings/${bookingId}`;

  // Both open the conversation; the guest's stays open, untouched, for the rest of the test.
  const g = await open(guest.context, conversation);
  const h = await open(host.context, conversation);
  await live(g.page);
  await live(h.page);
  await g.page.evaluate(() => ((window as unknown as { untouched: boolean }).untouched = true));
  await g.page.getByText("Messages are only available after booking is accepted").waitFor();
  expect(await g.page.getByRole("textbox", { name: "Message", exact: true }).isDisabled()).toBe(true);
  await expectAccessible(g.page, "the guest's pending conversation");

  // The host accepts from the request card.
  await h.page.getByRole("button", { name: "Accept" }).click();
  await h.page.getByText("Booking Accepted").waitFor();
  await live(h.page);

  // The guest's page follows without a reload: the system line, the chat open, the cards.
  await g.page.locator('[data-system="booking_accepted"]').waitFor();
  expect(await g.page.locator('[data-system="booking_accepted"]').innerText()).toContain("accepted your request");
  await g.page.getByText("Messages are only available after booking is accepted").waitFor({ state: "detached" });
  expect(await g.page.getByRole("textbox", { name: "Message", exact: true }).isEnabled()).toBe(true);
  await g.page.getByRole("link", { name: "Cancel booking" }).waitFor();
  expect(await g.page.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(true);

  // Live both ways: the guest sends with Enter (Shift+Enter is a new line), the host answers.
  const guestInput = g.page.getByRole("textbox", { name: "Message", exact: true });
  await guestInput.fill("Hi! Looking forward to it.");
  await guestInput.press("Shift+Enter");
  await guestInput.pressSequentially("Where do we meet?");
  expect(await g.page.locator("[data-count]").innerText()).toBe("44 / 2,000");
  await guestInput.press("Enter");
  expect(await guestInput.inputValue()).toBe("");
  const fromGuest = h.page.locator('[data-mine="false"]', { hasText: "Where do we meet?" });
  await fromGuest.waitFor();
  expect(await fromGuest.locator("p").innerText()).toBe("Hi! Looking forward to it.\nWhere do we meet?");

  // The host's screen is open and visible: it read the message, and the guest sees 'Seen'.
  await g.page.locator("[data-seen]").waitFor();

  const hostInput = h.page.getByRole("textbox", { name: "Message", exact: true });
  await hostInput.fill("At the north gate of the park.");
  await h.page.getByRole("button", { name: "Send", exact: true }).click();
  await g.page.locator('[data-mine="false"]', { hasText: "At the north gate of the park." }).waitFor();
  // Each message shows once on each side.
  expect(await g.page.locator("[data-message]", { hasText: "Where do we meet?" }).count()).toBe(1);
  expect(await h.page.locator("[data-message]", { hasText: "At the north gate of the park." }).count()).toBe(1);
  await expectAccessible(g.page, "the guest's open conversation");

  // The unread count: with the conversation closed, a new message counts until it is read.
  await g.page.goto(`${url}/bookings`);
  await hostInput.fill("See you there!");
  await hostInput.press("Enter");
  await h.page.locator('[data-mine="true"]:not([data-pending])', { hasText: "See you there!" }).waitFor();
  await g.page.reload();
  expect(await g.page.locator("[data-unread-badge]").innerText()).toBe("1");
  await g.page.goto(`${url}${conversation}`);
  await live(g.page);
  await g.page.getByText("See you there!").waitFor();
  await g.page.goto(`${url}/bookings`);
  expect(await g.page.locator("[data-unread-badge]").count()).toBe(0);
  await g.page.goto(`${url}${conversation}`);
  await live(g.page);
  await g.page.evaluate(() => ((window as unknown as { untouched: boolean }).untouched = true));

  // The activity starts (the server's clock moves on): the host marks it complete.
  clock = (await one(t.db.select().from(bookings).where(eq(bookings.id, bookingId))))!.startsAt + 30 * 60 * 1000;
  await h.page.reload();
  await h.page.getByRole("button", { name: "Mark complete" }).click();
  await h.page.getByText("Activity Completed").waitFor();

  await g.page.locator('[data-system="booking_completed"]').waitFor();
  expect(await g.page.locator('[data-system="booking_completed"]').innerText()).toContain("marked the activity as complete");
  await g.page.getByRole("link", { name: "Leave a review" }).waitFor();
  expect(await g.page.getByRole("textbox", { name: "Message", exact: true }).isDisabled()).toBe(true);
  expect(await g.page.evaluate(() => (window as unknown as { untouched?: boolean }).untouched)).toBe(true);

  expect([...g.errors, ...h.errors]).toEqual([]);
  await host.context.close();
  await guest.context.close();
});
