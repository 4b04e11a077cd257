import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq, isNull, like, lte } from "drizzle-orm";
import { bookings, jobs, users } from "../db/schema";
import { MESSAGE_EMAIL_DELAY_MS, messageEmailKey } from "../src/notifications/emails";
import { unsubscribeToken } from "../src/email/unsubscribe";
import { preferencesOf } from "../src/notifications/service";
import { type PreferenceKey } from "../src/notifications/rules";
import { formatMoney } from "../lib/money";
import { formatLocal } from "../lib/time";
import type { TestProvider } from "../src/payments/test-provider";
import { startFakeSmtp, type FakeSmtp, type ReceivedEmail } from "./fakes/smtp";
import { Client, makeTestApp, ORIGIN, requestWithTestCard, TENNIS, until } from "./helpers";

/**
 * Booking emails (docs/decisions/0025, 0034): each change a push notice tells of is also told by
 * email, to the same person under the same preference, as a durable job sent through a real SMTP
 * server (tests/fakes/smtp.ts) once the change is committed; the acceptance carries a calendar
 * invitation and a host's cancellation its CANCEL; every email has a one-click unsubscribe;
 * messages are batched while the recipient is away.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York (16:00 UTC).
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;

let smtp: FakeSmtp;
let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let guest: Client;
let hostId: string;
let guestId: string;
let activityId: string;
let placeActivityId: string;
const hostEmail = `hana-${crypto.randomUUID().slice(0, 8)}@example.com`;
const guestEmail = `gabe-${crypto.randomUUID().slice(0, 8)}@example.com`;

const body = async (res: Response) => (await res.json()) as Record<string, any>;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  t = await makeTestApp({ env: { SMTP_URL: smtp.url }, now: () => clock });
  host = t.client();
  guest = t.client();
  hostId = (await host.signUpComplete({ firstName: "Hana", email: hostEmail })).user.id;
  guestId = (await guest.signUpComplete({ firstName: "Gabe", email: guestEmail })).user.id;
  activityId = (await body(await host.postJson("/api/activities", TENNIS))).id;
  placeActivityId = (await body(await host.postJson("/api/activities", { ...TENNIS, title: "Cooking", category: "food", hasMeetingPoint: true, meetingPoint: "12 Court Street" }))).id;
  expect(placeActivityId).toBeString();
  // The sign-ups' verification emails are out before any test counts emails or refuses one.
  await settled();
});
afterAll(async () => {
  await t.deps.events.idle();
  t.deps.mailer.close();
  await smtp.close();
  t.cleanup();
});
beforeEach(() => {
  clock = START;
});

let day = 3;
/** A pending request for a fresh slot (a later day at 10:00 New York time, 2 hours, $88), through the API. */
async function pendingBooking(activity = activityId, c = guest) {
  const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
  const { res } = await requestWithTestCard(c, { activityId: activity, date, hours: 2, total: "88.00" });
  expect(res.status).toBe(201);
  await settled();
  return (await body(res)).id as string;
}

async function act(c: Client, id: string, action: string) {
  const res = await c.postJson(`/api/bookings/${id}/${action}`, {});
  expect(res.status).toBe(200);
  await settled();
}

async function say(sender: Client, bookingId: string, content: string) {
  expect((await sender.postJson("/api/messages", { bookingId, content })).status).toBe(201);
  await t.deps.events.idle();
}

/** Every email due now has been handed to the SMTP server (or failed and waits for its retry). */
async function settled() {
  await t.deps.events.idle();
  const waiting = async () => await t.db.select().from(jobs).where(and(eq(jobs.kind, "email.send"), lte(jobs.runAt, clock), isNull(jobs.failedAt)));
  await until("the queued emails to be sent", async () => (await waiting()).length === 0);
}

const bookingRow = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
/** The emails one address received about one booking (its conversation, review or unsubscribe link names it). */
const about = (address: string, bookingId: string) => smtp.to(address).filter((m) => m.text.includes(bookingId));
/** The booking's start as the English emails write it. */
const dateOf = async (id: string, locale: "en" | "fr" = "en") => formatLocal((await bookingRow(id)).startsAtLocal, locale, "dateTime");
/** The iCalendar part of an email, unfolded. */
function calendarOf(m: ReceivedEmail) {
  const part = m.parsed.attachments.find((a) => a.contentType.startsWith("text/calendar") || a.filename?.endsWith(".ics"));
  return part ? part.content.toString("utf8").replace(/\r\n[ \t]/g, "") : null;
}

async function setPreference(c: Client, key: PreferenceKey, on: boolean) {
  expect((await c.postJson("/api/notifications/preferences", { [key]: on })).status).toBe(200);
}

describe("each booking email reaches the right person", () => {
  test("a request reaches the host with the guest's name, the time, their earnings and one-click unsubscribe", async () => {
    const id = await pendingBooking();
    const [mail, ...more] = about(hostEmail, id);
    expect(more).toEqual([]);
    expect(about(guestEmail, id)).toEqual([]);
    expect(mail!.subject).toBe(`New request: Tennis on ${await dateOf(id)}`);
    expect(mail!.text).toContain("Gabe would like to book Tennis");
    expect(mail!.text).toContain(`Date and time: ${await dateOf(id)}`);
    expect(mail!.text).toContain("Duration: 2 hours");
    expect(mail!.text).toContain("Guest: Gabe");
    expect(mail!.text).toContain("Your earnings: $64.00");
    expect(mail!.text).toContain(`Accept or decline by ${formatLocal("2026-06-02T12:00:00", "en")}.`);
    expect(mail!.links).toContain(`${ORIGIN}/bookings/${id}`);
    expect(mail!.html).toContain('lang="en"');
    expect(mail!.html).toContain(`href="${ORIGIN}/bookings/${id}"`);
    expect(mail!.text).toContain("You get this email because of your notification settings on Offline.");
    const unsubscribe = `${ORIGIN}/email/unsubscribe?t=${unsubscribeToken(t.deps, hostId, "bookingRequests")}`;
    expect(mail!.header("List-Unsubscribe")).toBe(`<${unsubscribe}>`);
    expect(mail!.header("List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
    expect(mail!.text).toContain(unsubscribe);
    expect(calendarOf(mail!)).toBeNull();
    // Sent: no email job is left.
    expect(await t.db.select().from(jobs).where(eq(jobs.kind, "email.send"))).toEqual([]);
  });

  test("accepted: one email to the guest, with the charge and a calendar invitation in the activity's zone", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    const mails = about(guestEmail, id);
    expect(mails.length).toBe(1);
    const mail = mails[0]!;
    expect(mail.subject).toBe(`Booking confirmed: Tennis on ${await dateOf(id)}`);
    expect(mail.text).toContain("Hana accepted your request");
    expect(mail.text).toContain("$88.00 was charged to your card.");
    expect(mail.text).toContain("Price: $88.00");
    expect(mail.text).toContain("Host: Hana");
    expect(mail.text).toContain("Meeting point: Hana will share it in the conversation");
    expect(mail.header("List-Unsubscribe")).toContain(unsubscribeToken(t.deps, guestId, "bookingConfirmations"));
    // The host who accepted is not told of it.
    expect(about(hostEmail, id).map((m) => m.subject)).toEqual([`New request: Tennis on ${await dateOf(id)}`]);

    expect(mail.raw).toMatch(/Content-Type: text\/calendar; charset=utf-8; method=REQUEST/i);
    const ics = calendarOf(mail)!;
    const local = (await bookingRow(id)).startsAtLocal.replace(/[-:]/g, "").slice(0, 13);
    expect(ics).toContain("METHOD:REQUEST");
    expect(ics).toContain(`UID:booking-${id}@localhost`);
    expect(ics).toContain(`DTSTART;TZID=America/New_York:${local}00`);
    expect(ics).toContain(`DTEND;TZID=America/New_York:${local.slice(0, 9)}120000`);
    expect(ics).toMatch(/BEGIN:VTIMEZONE\r\nTZID:America\/New_York\r\n/);
    expect(ics).toContain("TZOFFSETTO:-0400");
    expect(ics).toContain("SUMMARY:Tennis");
    expect(ics).toContain("STATUS:CONFIRMED");
    expect(ics).toContain("ORGANIZER;CN=\"Offline\":mailto:no-reply@localhost");
    expect(ics).toContain(`${ORIGIN}/bookings/${id}`);
    // No meeting point set: no place in the calendar either.
    expect(ics).not.toContain("LOCATION");
    expect(ics).toMatch(/DTSTAMP:\d{8}T\d{6}Z/);
  });

  test("accepted with a meeting point: the invitation and the email name it", async () => {
    const id = await pendingBooking(placeActivityId);
    await act(host, id, "accept");
    const [mail] = about(guestEmail, id);
    expect(mail!.text).toContain("Meeting point: 12 Court Street, New York, United States");
    expect(calendarOf(mail!)).toContain("LOCATION:12 Court Street\\, New York\\, United States");
    expect(calendarOf(mail!)).toContain("SUMMARY:Cooking");
  });

  test("declined: the guest learns it and that the card was released", async () => {
    const id = await pendingBooking();
    await act(host, id, "reject");
    const [mail, ...more] = about(guestEmail, id);
    expect(more).toEqual([]);
    expect(mail!.subject).toBe("Request declined: Tennis");
    expect(mail!.text).toContain("Hana declined your request");
    expect(mail!.text).toContain("The $88.00 hold on your card was released: you were not charged.");
  });

  test("withdrawn by the guest: the host learns it; the guest who withdrew gets nothing", async () => {
    const id = await pendingBooking();
    await act(guest, id, "cancel");
    expect(about(hostEmail, id).map((m) => m.subject)).toEqual([`New request: Tennis on ${await dateOf(id)}`, "Request withdrawn: Tennis"]);
    expect(about(hostEmail, id)[1]!.text).toContain("Gabe withdrew their request");
    expect(about(guestEmail, id)).toEqual([]);
  });

  test("expired unanswered: the guest (card released) and the host (missed it)", async () => {
    const id = await pendingBooking();
    clock = (await bookingRow(id)).respondBy + 1000;
    await t.deps.jobs.runDue();
    await settled();
    expect((await bookingRow(id)).status).toBe("expired");
    const [guestMail] = about(guestEmail, id);
    expect(guestMail!.subject).toBe("Request expired: Tennis");
    expect(guestMail!.text).toContain("Hana did not answer your request for Tennis");
    expect(guestMail!.text).toContain("The $88.00 hold on your card was released");
    const hostMail = about(hostEmail, id).find((m) => m.subject === "You missed a request: Tennis");
    expect(hostMail!.text).toContain("You did not answer Gabe's request");
  });

  test("canceled by the guest after acceptance: the host learns it, the guest of the refund (and the calendar drops it)", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    await act(guest, id, "cancel");
    const hostMail = about(hostEmail, id).find((m) => m.subject.startsWith("Booking canceled"));
    expect(hostMail!.text).toContain("Gabe canceled their booking");
    expect(hostMail!.header("List-Unsubscribe")).toContain(unsubscribeToken(t.deps, hostId, "activityUpdates"));
    const refund = about(guestEmail, id).find((m) => m.subject === "Refund issued: Tennis");
    expect(refund!.text).toContain("$88.00 for Tennis was refunded to your card.");
    expect(calendarOf(refund!)).toContain("METHOD:CANCEL");
    expect(calendarOf(refund!)).toContain(`UID:booking-${id}@localhost`);
  });

  test("canceled by the guest inside the last day (the flexible policy): the guest is told nothing comes back, and the calendar drops it", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    const before = clock;
    clock = (await bookingRow(id)).startsAt - 23 * 60 * 60 * 1000;
    try {
      await act(guest, id, "cancel");
      expect((await bookingRow(id)).refundedCents).toBe(0);
      const mails = about(guestEmail, id);
      expect(mails.some((m) => m.subject.startsWith("Refund issued"))).toBe(false);
      const kept = mails.find((m) => m.subject === "Cancelled without a refund: Tennis");
      expect(kept!.text).toContain("You cancelled Tennis: under the host's cancellation policy, nothing is refunded.");
      expect(calendarOf(kept!)).toContain("METHOD:CANCEL");
    } finally {
      clock = before;
    }
  });

  test("canceled by the host: the guest's email carries the refund and a CANCEL of the same event", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    await act(host, id, "cancel");
    const mails = about(guestEmail, id);
    expect(mails.map((m) => m.subject)).toEqual([`Booking confirmed: Tennis on ${await dateOf(id)}`, `Booking canceled: Tennis on ${await dateOf(id)}`]);
    const mail = mails[1]!;
    expect(mail.text).toContain("Hana canceled your booking");
    expect(mail.text).toContain("$88.00 was refunded to your card.");
    expect(mail.raw).toMatch(/method=CANCEL/i);
    const ics = calendarOf(mail)!;
    expect(ics).toContain("METHOD:CANCEL");
    expect(ics).toContain("STATUS:CANCELLED");
    expect(ics).toContain("SEQUENCE:1");
    expect(ics).toContain(`UID:booking-${id}@localhost`);
    expect(ics).toContain(`DTSTART;TZID=America/New_York:`);
    expect(about(hostEmail, id).some((m) => m.subject.startsWith("Booking canceled"))).toBe(false);
  });

  test("completed: the guest is asked for a review; the payout reaches the host with the amount", async () => {
    const provider = t.deps.payments as TestProvider;
    const account = await provider.createConnectedAccount({ userId: hostId, email: null }, `host:${hostId}:account`);
    await writeTransaction(t.db, (tx) => tx.update(users).set({ stripeAccountId: account.id }).where(eq(users.id, hostId)));
    await provider.enableAccount(account.id);
    const id = await pendingBooking();
    await act(host, id, "accept");
    clock = (await bookingRow(id)).startsAt + HOUR;
    await act(host, id, "complete");
    const review = about(guestEmail, id).find((m) => m.subject === "How was Tennis?");
    expect(review!.text).toContain("Tell others what Tennis with Hana was like: leave a review.");
    expect(review!.links).toContain(`${ORIGIN}/review?bookingId=${id}&userType=guest`);
    expect(review!.html).toContain(`>Leave a review<`);
    // The host marked it complete: no review email for them.
    expect(about(hostEmail, id).some((m) => m.subject.startsWith("How was"))).toBe(false);
    // This booking's payout (a cancellation that kept its payment pays the host too).
    const payout = await smtp.waitFor(hostEmail, new RegExp(`^Payout sent[\\s\\S]*/bookings/${id}`));
    expect(payout.subject).toBe("Payout sent: $64.00");
    expect(payout.text).toContain(`$64.00 for Tennis on ${await dateOf(id)} is on its way to your payout account.`);
    expect(payout.header("List-Unsubscribe")).toContain(unsubscribeToken(t.deps, hostId, "paymentNotifications"));
  });

  test("in the recipient's language: a French host gets the request in French", async () => {
    await writeTransaction(t.db, (tx) => tx.update(users).set({ locale: "fr" }).where(eq(users.id, hostId)));
    try {
      const id = await pendingBooking();
      const [mail] = about(hostEmail, id);
      expect(mail!.subject).toBe(`Nouvelle demande : Tennis le ${await dateOf(id, "fr")}`);
      expect(mail!.text).toContain("Gabe souhaite réserver Tennis");
      expect(mail!.text).toContain(`Vos revenus\u202f: ${formatMoney(6400, "fr", { currency: "usd" })}`);
      expect(mail!.text).toContain("Durée\u202f: 2 heures");
      expect(mail!.text).toContain("Vous recevez cet e-mail en raison de vos paramètres de notification sur Offline.");
      expect(mail!.html).toContain('lang="fr"');
      expect(mail!.html).toContain("Répondre à la demande");
      // The guest chose no language: the server's default.
      await act(host, id, "accept");
      expect(about(guestEmail, id)[0]!.subject).toStartWith("Booking confirmed");
    } finally {
      await writeTransaction(t.db, (tx) => tx.update(users).set({ locale: null }).where(eq(users.id, hostId)));
    }
  });

  test("a suspended person is not emailed", async () => {
    const other = t.client();
    const address = `sam-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const { user } = await other.signUpComplete({ firstName: "Sam", email: address });
    const id = await pendingBooking(activityId, other);
    await writeTransaction(t.db, (tx) => tx.update(users).set({ suspendedAt: clock }).where(eq(users.id, user.id)));
    await act(host, id, "reject");
    expect(about(address, id)).toEqual([]);
  });
});

describe("preferences govern email as they govern push", () => {
  test("a preference turned off: no email of that kind", async () => {
    await setPreference(host, "bookingRequests", false);
    try {
      const id = await pendingBooking();
      expect(about(hostEmail, id)).toEqual([]);
    } finally {
      await setPreference(host, "bookingRequests", true);
    }
  });

  test("accepted with confirmations off: the payment part alone, without the invitation; both off: nothing", async () => {
    await setPreference(guest, "bookingConfirmations", false);
    try {
      const id = await pendingBooking();
      await act(host, id, "accept");
      const [mail, ...more] = about(guestEmail, id);
      expect(more).toEqual([]);
      expect(mail!.subject).toBe("Payment completed: Tennis");
      expect(mail!.text).toContain("$88.00 was charged for Tennis.");
      expect(mail!.header("List-Unsubscribe")).toContain(unsubscribeToken(t.deps, guestId, "paymentNotifications"));
      expect(calendarOf(mail!)).toBeNull();

      await setPreference(guest, "paymentNotifications", false);
      const quiet = await pendingBooking();
      await act(host, quiet, "accept");
      expect(about(guestEmail, quiet)).toEqual([]);
    } finally {
      await setPreference(guest, "bookingConfirmations", true);
      await setPreference(guest, "paymentNotifications", true);
    }
  });
});

describe("one-click unsubscribe", () => {
  const post = (url: string, init: RequestInit = {}) =>
    t.app.handle(
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
        ...init,
      }),
    );

  test("the link asks first (changing nothing); a mail program's POST, without cookies or origin, turns that kind off", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete({ firstName: "Uma" });
    const url = `${ORIGIN}/email/unsubscribe?t=${unsubscribeToken(t.deps, user.id, "messages")}`;

    const page = await t.app.handle(new Request(url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Stop “Messages” emails?");
    expect(html).toContain("This also stops push notifications about it");
    expect(html).toContain(`action="${new URL(url).pathname}${new URL(url).search}"`);
    expect(html).toContain(">Stop these emails<");
    expect((await preferencesOf(t.db, user.id)).messages).toBe(true);

    const res = await post(url);
    expect(res.status).toBe(200);
    const done = await res.text();
    expect(done).toContain("<h1 class=\"text-2xl font-bold\">You&#x27;re unsubscribed</h1>");
    expect(done).toContain('href="/settings"');
    expect(await preferencesOf(t.db, user.id)).toMatchObject({ messages: false, bookingRequests: true, reviews: true });
    // Again: still off, still fine.
    expect((await post(url)).status).toBe(200);
    // Settings shows the switch off.
    expect(await (await c.get("/settings")).text()).toMatch(/name="messages"[^>]*role="switch"(?![^>]*checked)/);
  });

  test("a signed-in browser posts the page's own form with its token", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const path = `/email/unsubscribe?t=${unsubscribeToken(t.deps, user.id, "reminders")}`;
    const page = await (await c.get(path)).text();
    expect(page).toContain(`name="_csrf" value="${c.csrf}"`);
    expect((await c.postForm(path, { "List-Unsubscribe": "One-Click" })).status).toBe(200);
    expect((await preferencesOf(t.db, user.id)).reminders).toBe(false);
  });

  test("a bad or altered token: a 400 page that says so, nothing changed", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const good = unsubscribeToken(t.deps, user.id, "reviews");
    const [payload, sig] = good.split(".");
    const forged = `${Buffer.from(`${user.id}.messages`).toString("base64url")}.${sig}`;
    for (const token of ["", "nonsense", `${payload}.`, `${payload}.${sig}x`, forged, `${good}.x`, "a".repeat(1000)]) {
      for (const res of [await t.app.handle(new Request(`${ORIGIN}/email/unsubscribe?t=${token}`)), await post(`${ORIGIN}/email/unsubscribe?t=${token}`)]) {
        expect({ token, status: res.status }).toEqual({ token, status: 400 });
        expect(await res.text()).toContain("This link does not work");
      }
    }
    // A NUL is refused before the route (decision 0047), with the app's own 400.
    for (const res of [await t.app.handle(new Request(`${ORIGIN}/email/unsubscribe?t=%00`)), await post(`${ORIGIN}/email/unsubscribe?t=%00`)]) expect(res.status).toBe(400);
    expect((await t.app.handle(new Request(`${ORIGIN}/email/unsubscribe`))).status).toBe(400);
    expect(await preferencesOf(t.db, user.id)).toMatchObject({ reviews: true, messages: true });
  });

  test("the email's own unsubscribe link works end to end", async () => {
    const id = await pendingBooking();
    const [mail] = about(hostEmail, id);
    const link = /^<(.+)>$/.exec(mail!.header("List-Unsubscribe")!)![1]!;
    try {
      expect((await post(link)).status).toBe(200);
      expect((await preferencesOf(t.db, hostId)).bookingRequests).toBe(false);
      const next = await pendingBooking();
      expect(about(hostEmail, next)).toEqual([]);
    } finally {
      await setPreference(host, "bookingRequests", true);
    }
  });
});

describe("messages while away, batched", () => {
  test("three messages: one email after the delay, quoting them", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    await say(guest, id, "Hi Hana!");
    await say(guest, id, "Can we start at 10:15?\nTraffic.");
    await say(guest, id, "I'll bring balls.");
    expect((await t.db.select().from(jobs).where(like(jobs.key, `${messageEmailKey(id, hostId)}:%`))).length).toBe(1);
    await settled();
    expect(about(hostEmail, id).filter((m) => m.subject.includes("message"))).toEqual([]);

    clock += MESSAGE_EMAIL_DELAY_MS - 1000;
    await t.deps.jobs.runDue();
    await settled();
    expect(about(hostEmail, id).filter((m) => m.subject.includes("message"))).toEqual([]);

    clock += 1000;
    await t.deps.jobs.runDue();
    await settled();
    const mails = about(hostEmail, id).filter((m) => m.subject.includes("message"));
    expect(mails.length).toBe(1);
    expect(mails[0]!.subject).toBe("Gabe sent you 3 messages about Tennis");
    expect(mails[0]!.text).toContain("“Hi Hana!”\n\n“Can we start at 10:15? Traffic.”\n\n“I'll bring balls.”");
    expect(mails[0]!.links).toContain(`${ORIGIN}/bookings/${id}`);
    expect(mails[0]!.header("List-Unsubscribe")).toContain(unsubscribeToken(t.deps, hostId, "messages"));
    expect(about(guestEmail, id).filter((m) => m.subject.includes("message"))).toEqual([]);

    // A later message starts a new batch.
    await say(guest, id, "Thanks!");
    clock += MESSAGE_EMAIL_DELAY_MS;
    await t.deps.jobs.runDue();
    await settled();
    expect(about(hostEmail, id).filter((m) => m.subject.includes("message")).map((m) => m.subject)).toEqual([
      "Gabe sent you 3 messages about Tennis",
      "Gabe sent you a message about Tennis",
    ]);
  });

  test("messages on either side of a batch's end: two emails, each message told once", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    // A second before a ten-minute window ends, then a second after.
    clock = Math.ceil(clock / MESSAGE_EMAIL_DELAY_MS) * MESSAGE_EMAIL_DELAY_MS + MESSAGE_EMAIL_DELAY_MS - 1000;
    await say(guest, id, "First, just before the end");
    clock += 2000;
    await say(guest, id, "Second, just after");
    expect((await t.db.select().from(jobs).where(like(jobs.key, `${messageEmailKey(id, hostId)}:%`))).length).toBe(2);
    clock += MESSAGE_EMAIL_DELAY_MS;
    await t.deps.jobs.runDue();
    await settled();
    const mails = about(hostEmail, id).filter((m) => m.subject.includes("message"));
    expect(mails.length).toBe(2);
    expect(mails.filter((m) => m.text.includes("First, just before the end")).length).toBe(1);
    expect(mails.filter((m) => m.text.includes("Second, just after")).length).toBe(1);
  });

  test("read in time: no email; reading the conversation at that moment: no job at all", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    await say(host, id, "See you there");
    expect((await guest.postJson(`/api/messages/${id}/mark-read`, {})).status).toBe(200);
    clock += MESSAGE_EMAIL_DELAY_MS;
    await t.deps.jobs.runDue();
    await settled();
    expect(about(guestEmail, id).filter((m) => m.subject.includes("message"))).toEqual([]);

    t.deps.presence.enter(guestId, id);
    try {
      await say(host, id, "Running late");
    } finally {
      t.deps.presence.leave(guestId, id);
    }
    expect(await t.db.select().from(jobs).where(like(jobs.key, `${messageEmailKey(id, guestId)}:%`))).toEqual([]);
  });

  test("messages off: no job, no email", async () => {
    const id = await pendingBooking();
    await act(host, id, "accept");
    await setPreference(guest, "messages", false);
    try {
      await say(host, id, "Hello?");
      expect(await t.db.select().from(jobs).where(like(jobs.key, `${messageEmailKey(id, guestId)}:%`))).toEqual([]);
    } finally {
      await setPreference(guest, "messages", true);
    }
  });
});

describe("durable", () => {
  test("an SMTP server refusing: tried again later, delivered once", async () => {
    smtp.refuseNext(1);
    const id = await pendingBooking();
    expect(about(hostEmail, id)).toEqual([]);
    const [job] = await t.db.select().from(jobs).where(eq(jobs.kind, "email.send"));
    expect(job!.lastError).toContain("Try again later");
    expect(job!.runAt).toBe(clock + 30_000);

    clock += 30_000;
    await t.deps.jobs.runDue();
    await settled();
    expect(about(hostEmail, id).map((m) => m.subject)).toEqual([`New request: Tennis on ${await dateOf(id)}`]);
    await t.deps.jobs.runDue();
    expect(about(hostEmail, id).length).toBe(1);
  });

  test("a restart sends what was queued before it", async () => {
    smtp.refuseNext(1);
    const id = await pendingBooking();
    expect(about(hostEmail, id)).toEqual([]);
    // A new process on the same data directory (the first one stopped sending).
    const restarted = await makeTestApp({ env: { SMTP_URL: smtp.url }, now: () => clock, dataDir: t.dataDir });
    try {
      clock += 30_000;
      expect(await restarted.deps.jobs.runDue()).toBeGreaterThanOrEqual(1);
      await until("the queued email", () => about(hostEmail, id).length > 0);
      expect(about(hostEmail, id).map((m) => m.subject)).toEqual([`New request: Tennis on ${await dateOf(id)}`]);
    } finally {
      restarted.deps.mailer.close();
    }
  });
});
