import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bookings } from "../db/schema";
import { ABANDONED_HOLD_PAUSE_MS } from "../src/bookings/service";
import { bookingParties, makeTestApp, requestWithTestCard } from "./helpers";
import { MAX_BOOKING_MESSAGE } from "../shared/limits";

/**
 * Rules an attacker leans on around bookings (docs/decisions/0030), each tried as the attacker
 * would: holding a host's calendar without paying, messages that hide or reverse text, a host
 * refunding after the fact, and accepting a request for an activity that is gone.
 */
const HOUR = 60 * 60 * 1000;
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;
let t: Awaited<ReturnType<typeof makeTestApp>>;
let p: Awaited<ReturnType<typeof bookingParties>>;
let day = 3;
const nextDate = () => new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
const row = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
const body = async (res: Response) => (await res.json()) as Record<string, any>;

beforeAll(async () => {
  t = await makeTestApp({ now });
  p = await bookingParties(t);
});
afterAll(() => t.cleanup());

const hold = (date: string, message = "Hello!", who = p.guest) =>
  who.postJson("/api/create-payment-intent", { activityId: p.activityId, hours: 2, amount: "88.00", proposedDate: date, proposedTime: "10:00", message });

describe("holding a host's time costs something", () => {
  test("one unpaid hold at a time: a second time is refused until the first is paid or cancelled", async () => {
    clock = START;
    const first = await hold(nextDate());
    expect(first.status).toBe(200);
    const { bookingId } = await body(first);
    const second = await hold(nextDate());
    expect(second.status).toBe(409);
    expect((await body(second)).message).toBe("You are already booking another time. Pay for it or cancel it in your bookings before holding a new one.");
    // Asking again for the same choice is the same hold, not a second one.
    expect((await body(await hold((await row(bookingId)).startsAtLocal.slice(0, 10)))).bookingId).toBe(bookingId);
    expect((await p.guest.postJson(`/api/bookings/${bookingId}/cancel`, {})).status).toBe(200);
    const third = await hold(nextDate());
    expect(third.status).toBe(200);
    expect((await p.guest.postJson(`/api/bookings/${(await body(third)).bookingId}/cancel`, {})).status).toBe(200);
  });

  test("holds left unpaid again and again: the next one waits, longer each time, and the host's calendar stays open", async () => {
    clock = START + 2 * HOUR;
    const squatter = t.client();
    await squatter.signUpComplete();
    for (let i = 0; i < 3; i++) {
      const res = await hold(nextDate(), "Hi", squatter);
      expect(res.status).toBe(200);
      expect((await squatter.postJson(`/api/bookings/${(await body(res)).bookingId}/cancel`, {})).status).toBe(200);
    }
    const refused = await hold(nextDate(), "Hi", squatter);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBe(ABANDONED_HOLD_PAUSE_MS / 1000);
    expect((await body(refused)).message).toContain("You left several bookings unpaid in the last hour.");
    // Once the pause is over, one more hold; leaving it too doubles the next pause.
    clock += ABANDONED_HOLD_PAUSE_MS;
    const again = await hold(nextDate(), "Hi", squatter);
    expect(again.status).toBe(200);
    const givenUp = (await body(again)).bookingId as string;
    expect((await squatter.postJson(`/api/bookings/${givenUp}/cancel`, {})).status).toBe(200);
    const longer = await hold(nextDate(), "Hi", squatter);
    expect(longer.status).toBe(429);
    expect(Number(longer.headers.get("retry-after"))).toBe((2 * ABANDONED_HOLD_PAUSE_MS) / 1000);
    // A real guest books the time the squatter gave up.
    const date = (await row(givenUp)).startsAtLocal.slice(0, 10);
    const { res } = await requestWithTestCard(p.guest, { activityId: p.activityId, date, hours: 2, total: "88.00" });
    expect(res.status).toBe(201);
  });
});

describe("the request's message goes through the one text normaliser, with one limit", () => {
  test("control, escape and text-direction characters are refused; invisible-only text is no message", async () => {
    clock = START + 5 * HOUR;
    for (const bad of ["Hi\u0007there", "\u001b[31mred\u001b[0m", "Pay \u202Eelsewhere", "a\u2066b\u2069"]) {
      const res = await hold(nextDate(), bad);
      expect(res.status).toBe(400);
      expect((await body(res)).message).toBe("The message contains characters that cannot be sent (control or text-direction characters).");
    }
    const invisible = await hold(nextDate(), "\u200B\u200B\uFEFF \u2060");
    expect(invisible.status).toBe(400);
    expect((await body(invisible)).message).toBe("Please add a message to your request");
  });

  test(`at most ${MAX_BOOKING_MESSAGE} characters in every flow, refused beyond (never cut), and kept as written within`, async () => {
    clock = START + 6 * HOUR;
    const tooLong = "x".repeat(MAX_BOOKING_MESSAGE + 1);
    expect((await hold(nextDate(), tooLong)).status).toBe(400);
    const date = nextDate();
    const { res } = await requestWithTestCardAndMessage(date, tooLong);
    expect(res.status).toBe(400);
    expect((await body(res)).message).toBe("The message is 1000 characters at most.");
    // Within the limit: trimmed of invisible edges, NFC, line breaks kept.
    const ok = await hold(nextDate(), "\u200B Caf\u0065\u0301 at 10?\r\nSee you \u200B");
    expect(ok.status).toBe(200);
    const kept = (await body(ok)).bookingId as string;
    expect((await row(kept)).message).toBe("Café at 10?\nSee you");
    expect((await p.guest.postJson(`/api/bookings/${kept}/cancel`, {})).status).toBe(200);
  });
});

/** The date-time flow's request with a message (the helper sends none). */
async function requestWithTestCardAndMessage(date: string, message: string) {
  const intent = await body(await p.guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId: p.activityId, date, time: "10:00", duration: "2" } }));
  await p.guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/40", cvc: "123" });
  const res = await p.guest.postJson("/api/bookings", { activityId: p.activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId, message });
  return { res, intent };
}

describe("rules a host could lean on", () => {
  async function accepted() {
    clock = START;
    const { res } = await requestWithTestCard(p.guest, { activityId: p.activityId, date: nextDate(), hours: 2, total: "88.00" });
    expect(res.status).toBe(201);
    const id = (await body(res)).id as string;
    expect((await p.host.postJson(`/api/bookings/${id}/accept`, {})).status).toBe(200);
    return id;
  }

  test("a host cancels up to the start (the guest refunded in full), never after it", async () => {
    const before = await accepted();
    clock = (await row(before)).startsAt - 60 * 1000;
    expect((await p.host.postJson(`/api/bookings/${before}/cancel`, {})).status).toBe(200);
    expect(await row(before)).toMatchObject({ status: "canceled", canceledBy: "host" });

    const after = await accepted();
    clock = (await row(after)).startsAt + 60 * 1000;
    const res = await p.host.postJson(`/api/bookings/${after}/cancel`, {});
    expect(res.status).toBe(409);
    expect((await body(res)).message).toBe("The activity has started: it can no longer be cancelled. Mark it complete, or report a problem.");
    expect((await row(after)).status).toBe("accepted");
    // And it completes as usual, so the guest can review it.
    expect((await p.host.postJson(`/api/bookings/${after}/complete`, {})).status).toBe(200);
  });

  test("a request for an activity the host deleted cannot be accepted, only declined", async () => {
    clock = START;
    const other = await p.host.postJson("/api/activities", { title: "Padel", description: "An hour of padel.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" });
    const activityId = (await body(other)).id as string;
    const { res } = await requestWithTestCard(p.guest, { activityId, date: nextDate(), hours: 2, total: "88.00" });
    const id = (await body(res)).id as string;
    expect((await p.host.request(`/api/activities/${activityId}`, { method: "DELETE" })).status).toBeLessThan(300);
    const accept = await p.host.postJson(`/api/bookings/${id}/accept`, {});
    expect(accept.status).toBe(409);
    expect((await body(accept)).message).toBe("This activity is no longer listed: decline the request instead.");
    expect((await row(id)).status).toBe("pending");
    expect((await p.host.postJson(`/api/bookings/${id}/reject`, {})).status).toBe(200);
  });
});
