import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings } from "../db/schema";
import { select } from "./html";
import { bookingParties, Client, makeTestApp, requestWithTestCard } from "./helpers";

/**
 * What a screen audit found about content, through app.handle: booking rows say when, the host is
 * shown the same labelled amounts on the dashboard and in the conversation, earnings to the cent,
 * checkouts that ended unpaid leave no row, a conversation that ended says so, form descriptions
 * exist, the browse filters close on a pick and can be submitted, and a refused card's alert is
 * marked to take the focus. (Layout and sight: tests/e2e/screens-audit.e2e.ts.)
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let guest: Client;
let activityId: string;

const html = async (c: Client, path: string) => (await c.get(path)).text();
const text = (found: { text: string }[]) => found.map((f) => f.text.replace(/\s+/g, " ").trim());
const dateOf = (days: number) => new Date(START + days * DAY).toISOString().slice(0, 10);

/** A pending request for the $40/hour tennis (1 hour: the guest pays $44.00, the host earns $32.00). */
async function request(days: number, time = "10:00") {
  const { res } = await requestWithTestCard(guest, { activityId, date: dateOf(days), time, hours: 1, total: "44.00" });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  t = await makeTestApp({ now: () => clock });
  ({ host, guest, activityId } = await bookingParties(t, { host: { firstName: "Maya" }, guest: { firstName: "Sam" } }));
}, 30_000);
afterAll(() => t.cleanup());

describe("booking rows and amounts", () => {
  test("several requests for one activity each show their date and time, on the dashboard and in /bookings", async () => {
    const first = await request(3, "10:00");
    const second = await request(4, "15:00");
    const dashboard = await html(host, "/host");
    const when = (id: string) => text(select(dashboard, `[data-request="${id}"] [data-request-when]`))[0];
    expect(when(first)).toContain("Jun 4, 2026, 10:00 AM");
    expect(when(second)).toContain("Jun 5, 2026, 3:00 PM");
    for (const who of [host, guest]) {
      const list = await html(who, "/bookings");
      expect(text(select(list, `li[data-booking="${first}"] [data-booking-when]`))).toEqual(["Thu, Jun 4, 10:00 AM"]);
      expect(text(select(list, `li[data-booking="${second}"] [data-booking-when]`))).toEqual(["Fri, Jun 5, 3:00 PM"]);
    }
  });

  test("the host sees what the guest pays and what they earn, labelled alike, on the dashboard and in the conversation", async () => {
    const id = await request(5);
    const dashboard = await html(host, "/host");
    const amounts = (scope: string) => {
      const labels = text(select(dashboard, `${scope} dt`));
      const values = text(select(dashboard, `${scope} dd`));
      return labels.map((l, i) => [l, values[i]]);
    };
    expect(amounts(`[data-request="${id}"] [data-request-amounts]`)).toEqual([
      ["Guest pays", "$44.00"],
      ["Your earnings", "$32.00"],
    ]);
    // No unlabelled subtotal ($40.00) beside them.
    expect(select(dashboard, `[data-request="${id}"]`)[0]).toBeDefined();
    expect(dashboard.slice(dashboard.indexOf(`data-request="${id}"`)).split("</li>")[0]).not.toContain("$40.00");

    const card = await html(host, `/bookings/${id}`);
    const rows = text(select(card, "[data-booking-card] dl dt")).map((l, i) => [l, text(select(card, "[data-booking-card] dl dd"))[i]]);
    expect(rows).toContainEqual(["Guest pays", "$44.00"]);
    expect(rows).toContainEqual(["Your earnings", "$32.00"]);
    // The guest's own card says the price they pay, and nothing of the host's share.
    const guestCard = await html(guest, `/bookings/${id}`);
    expect(text(select(guestCard, "[data-booking-card] dl dt"))).not.toContain("Your earnings");
    expect(text(select(guestCard, "[data-booking-card] dl dd"))).toContain("$44.00");
  });

  test("the dashboard's Earnings counter shows cents, as the spec shows earnings", async () => {
    const id = await request(6);
    expect((await host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    clock = t.db.select().from(bookings).where(eq(bookings.id, id)).get()!.startsAt + HOUR;
    expect((await host.postJson(`/api/bookings/${id}/complete`, {})).status).toBe(200);
    const counters = text(select(await html(host, "/host"), "ul.grid-cols-3 > li > p"));
    expect(counters).toContain("$32.00");
    expect(counters).toContain("Earnings");
  });
});

describe("the guest's bookings list", () => {
  test("a checkout left unpaid shows while it is open, and leaves no row once it ended; a declined request stays", async () => {
    const later = new Date(clock + 20 * DAY).toISOString().slice(0, 10);
    const res = await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: later, proposedTime: "11:00", message: "Hello!" });
    expect(res.status).toBe(200);
    const { bookingId, sessionId } = (await res.json()) as { bookingId: string; sessionId: string };
    const row = async (c: Client) => select(await html(c, "/bookings"), `li[data-booking="${bookingId}"]`).length;
    // Still paying: the row is there with its way to pay.
    expect(select(await html(guest, "/bookings"), `li[data-booking="${bookingId}"] a[href="/checkout/${bookingId}"]`)).toHaveLength(1);
    // The guest leaves the checkout: the booking ends without ever being a request.
    await guest.postForm(`/payments/test/checkout/${sessionId}/cancel`, {});
    expect(["canceled", "expired"]).toContain(t.db.select().from(bookings).where(eq(bookings.id, bookingId)).get()!.status);
    expect(await row(guest)).toBe(0);
    expect(await row(host)).toBe(0);

    const declined = await request(25);
    expect((await host.postJson(`/api/bookings/${declined}/reject`, {})).status).toBe(200);
    expect(select(await html(guest, "/bookings"), `li[data-booking="${declined}"] [data-status="rejected"]`)).toHaveLength(1);
  });
});

describe("the conversation of a booking that ended", () => {
  test("a declined or expired booking says messages are closed, not that they come after acceptance; a pending one says they do", async () => {
    const expiring = await request(26);
    clock = t.db.select().from(bookings).where(eq(bookings.id, expiring)).get()!.respondBy + 1;
    await t.deps.jobs.runDue();
    expect(t.db.select().from(bookings).where(eq(bookings.id, expiring)).get()!.status).toBe("expired");
    const pending = await request(27);
    const declined = await request(28);
    expect((await host.postJson(`/api/bookings/${declined}/reject`, {})).status).toBe(200);
    const banner = (page: string) => select(page, "[data-chat-disabled]").map((b) => [b.attributes["data-chat-disabled"], b.text]);
    for (const c of [host, guest]) {
      expect(banner(await html(c, `/bookings/${pending}`))).toEqual([["waiting", "Messages are only available after booking is accepted"]]);
      for (const id of [declined, expiring]) {
        const ended = await html(c, `/bookings/${id}`);
        expect(banner(ended)).toEqual([["ended", "This booking has ended: no more messages can be sent."]]);
        // The chat island is told the same text: it follows a status change live.
        const props = JSON.parse(select(ended, '[data-island="Chat"]')[0]!.attributes["data-props"]!) as { texts: Record<string, string> };
        expect(props.texts.closedBanner).toBe("This booking has ended: no more messages can be sent.");
      }
    }
    const french = await (await guest.get(`/bookings/${declined}`, { "accept-language": "fr" })).text();
    expect(french).toContain("Cette réservation est terminée");
  });
});

describe("forms", () => {
  test("/create-activity names in aria-describedby only ids that are on the page, with and without errors", async () => {
    const idsOk = (page: string) => {
      const ids = new Set(select(page, "[id]").map((e) => e.attributes.id));
      const named = select(page, "[aria-describedby]").flatMap((e) => e.attributes["aria-describedby"]!.split(/\s+/));
      expect(named.length).toBeGreaterThan(0);
      return named.filter((id) => !ids.has(id));
    };
    expect(idsOk(await html(host, "/create-activity"))).toEqual([]);
    const refused = await (await host.postForm("/create-activity", { title: "", description: "", category: "", hourlyRate: "", hasMeetingPoint: "false", photos: "[]" })).text();
    expect(select(refused, "[aria-invalid=true]").length).toBeGreaterThan(0);
    expect(idsOk(refused)).toEqual([]);
  });

  test("browse: a picked category closes the grid and is named on its summary; the city form has a submit button outside <noscript>", async () => {
    const page = await html(guest, "/browse?city=New%20York&category=food");
    expect(select(page, "#browse details[open]")).toHaveLength(0);
    expect(text(select(page, "#browse details summary"))).toEqual(["Filters · Food"]);
    expect(select(page, "#categories a").every((a) => !a.attributes.href!.includes("filters="))).toBe(true);
    // Asked for (its summary without script, or a shared link), the grid is open.
    expect(select(await html(guest, "/browse?city=New%20York&filters=1"), "#browse details[open]")).toHaveLength(1);
    const form = page.slice(page.indexOf('<form method="get" action="/browse"'), page.indexOf("</form>", page.indexOf('action="/browse"')));
    expect(form).not.toContain("<noscript>");
    expect(select(form, 'button[type="submit"]').map((b) => b.text)).toEqual(["Show"]);
    expect(select(page, 'form[action="/browse"]')[0]!.attributes["hx-trigger"]).toBe("change, submit");
  });

  test("a refused card's alert is marked to take the focus when the page loads, on the payment screen and the hosted checkout", async () => {
    const date = dateOf(40);
    expect((await guest.postForm(`/booking/${activityId}/date-time`, { date, time: "10:00", duration: "1" })).status).toBe(303);
    const refused = await guest.postForm(`/booking/${activityId}/payment`, { cardNumber: "4000 0000 0000 0002", expiry: "12/34", cvc: "123", amount: "44.00" });
    expect(refused.status).toBe(402);
    const alert = select(await refused.text(), "[data-focus-alert]");
    expect(alert).toHaveLength(1);
    expect(alert[0]!.attributes).toMatchObject({ role: "alert", tabindex: "-1", autofocus: "" });
    expect(alert[0]!.text).toContain("Your card was declined.");

    const res = await guest.postJson("/api/create-payment-intent", { activityId, hours: 1, amount: "44.00", proposedDate: dateOf(41), proposedTime: "11:00", message: "Hi" });
    const { sessionId } = (await res.json()) as { sessionId: string };
    const checkout = await guest.postForm(`/payments/test/checkout/${sessionId}`, { cardNumber: "4000 0000 0000 0002", expiry: "12/34", cvc: "123" });
    expect(checkout.status).toBe(402);
    expect(select(await checkout.text(), "[data-focus-alert][autofocus]")).toHaveLength(1);
  });
});
