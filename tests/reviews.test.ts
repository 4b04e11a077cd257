import { one } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activityRow, bookingRow, insert, userRow } from "../src/demo/factories";
import { jobs, reviews, type Activity, type BookingStatus, type User } from "../db/schema";
import type { DomainEvent } from "../src/events";
import { publishDueReviews } from "../src/reviews/service";
import { REVIEW_WINDOW_MS } from "../src/reviews/rules";
import { makeTestApp, type Client } from "./helpers";
import { scenarios, shown, type Scenario } from "./scenario";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** A clock the tests move by hand. */
const START = Date.UTC(2026, 10, 22, 12);
let now = START;
let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: User;
let guest: User;
let stranger: User;
let activity: Activity;
const clients = {} as Record<"host" | "guest" | "stranger", Client>;
const events: DomainEvent[] = [];

beforeAll(async () => {
  t = await makeTestApp({ now: () => now });
  t.deps.events.on((e) => void events.push(e));
  const put = insert(t.db);
  host = await put.user(userRow({ firstName: "Maya" }));
  guest = await put.user(userRow({ firstName: "Noah" }));
  stranger = await put.user(userRow({ firstName: "Zed" }));
  activity = await put.activity(activityRow(host, { title: "Sunset tennis" }, now - 30 * DAY));
  for (const [who, user] of [["host", host], ["guest", guest], ["stranger", stranger]] as const) {
    clients[who] = t.client();
    await clients[who].signInAs(user.id);
  }
});
afterAll(() => t.cleanup());

/** A booking of the activity by the guest in `status`; a completed one finished `completedAgo` ago. */
function booking(status: BookingStatus = "completed", completedAgo = HOUR) {
  const startsAt = Math.floor((now - completedAgo - 2 * HOUR) / HOUR) * HOUR;
  const row = bookingRow(activity, { guestId: guest.id, startsAt, status });
  return insert(t.db).booking({ ...row, completedAt: status === "completed" ? now - completedAgo : null });
}

const body = async (res: Response) => (await res.json()) as Record<string, unknown>;
const review = (who: keyof typeof clients, json: Record<string, unknown>) => clients[who].postJson("/api/reviews", json);
const storedReviews = async (bookingId: string) => await t.db.select().from(reviews).where(eq(reviews.bookingId, bookingId));

describe("who may review, by booking status and timing", () => {
  type Row = [who: "guest" | "host" | "stranger", status: BookingStatus, completedAgo: number, expected: number, message?: string];
  const rows: Row[] = [
    ["guest", "completed", HOUR, 201],
    ["host", "completed", HOUR, 201],
    ["stranger", "completed", HOUR, 404, "Booking not found"],
    ["guest", "completed", 13 * DAY + 23 * HOUR, 201],
    ["host", "completed", 13 * DAY + 23 * HOUR, 201],
    ["guest", "completed", REVIEW_WINDOW_MS, 409, "Reviews can be written up to 14 days after the activity; that time has passed for this booking."],
    ["host", "completed", 30 * DAY, 409, "Reviews can be written up to 14 days after the activity; that time has passed for this booking."],
    ["stranger", "completed", 30 * DAY, 404, "Booking not found"],
    ...(["pending", "accepted", "rejected", "expired", "canceled", "awaiting_payment", "no_show_guest", "no_show_host"] as const).flatMap((status): Row[] => [
      ["guest", status, HOUR, 409, "You can review this booking once the activity is completed."],
      ["host", status, HOUR, 409, "You can review this booking once the activity is completed."],
      ["stranger", status, HOUR, 404, "Booking not found"],
    ]),
  ];
  scenarios(
    () => ({ app: t, callers: clients }),
    rows.map(([who, status, ago, expected, message]): Scenario => {
      let bookingId = "";
      return {
        name: `${who}, ${status}, ${ago / HOUR} h after completion: ${expected}`,
        before: async () => void ({ id: bookingId } = await booking(status, ago)),
        as: who,
        method: "POST",
        url: "/api/reviews",
        body: () => ({ bookingId, reviewedUserId: who === "host" ? guest.id : host.id, stars: 4, text: "Lovely" }),
        status: expected,
        ...(message ? { json: { message } } : {}),
        after: async () => expect((await storedReviews(bookingId)).length).toBe(expected === 201 ? 1 : 0),
      };
    }),
  );

  test("an unknown or malformed booking id is 404 like someone else's", async () => {
    for (const bookingId of ["00000000-0000-4000-8000-000000000000", "nope", 42, undefined]) {
      const res = await review("guest", { bookingId, reviewedUserId: host.id, stars: 5 });
      expect(res.status).toBe(404);
    }
  });
});

describe("what a review may say", () => {
  const refusals: [{ stars?: unknown; text?: unknown; reviewedUserId?: "self" | "stranger" }, string][] = [
    [{ stars: undefined }, "Select a star rating before submitting"],
    [{ stars: "" }, "Select a star rating before submitting"],
    [{ stars: 0 }, "The rating must be a whole number of stars from 1 to 5."],
    [{ stars: 6 }, "The rating must be a whole number of stars from 1 to 5."],
    [{ stars: 2.5 }, "The rating must be a whole number of stars from 1 to 5."],
    [{ stars: "three" }, "The rating must be a whole number of stars from 1 to 5."],
    [{ stars: [4] }, "The rating must be a whole number of stars from 1 to 5."],
    [{ stars: 4, text: "x".repeat(501) }, "Your comment can be at most 500 characters."],
    [{ stars: 4, text: 12 }, "The comment must be text."],
    [{ stars: 4, text: "bad\u0007bell" }, "Your comment contains characters that are not allowed."],
    [{ stars: 4, reviewedUserId: "self" }, "You can only review the other person of this booking."],
    [{ stars: 4, reviewedUserId: "stranger" }, "You can only review the other person of this booking."],
  ];
  scenarios(
    () => ({ app: t, callers: clients }),
    refusals.map(([input, message]): Scenario => {
      let bookingId = "";
      return {
        name: `${shown(input)} is refused: ${message}`,
        before: async () => void ({ id: bookingId } = await booking()),
        as: "guest",
        method: "POST",
        url: "/api/reviews",
        body: () => ({ bookingId, ...input, reviewedUserId: input.reviewedUserId === "self" ? guest.id : input.reviewedUserId === "stranger" ? stranger.id : host.id }),
        status: 400,
        json: { message },
        after: async () => expect(await storedReviews(bookingId)).toEqual([]),
      };
    }),
  );

  test("the comment is trimmed and normalised; exactly 500 characters and a form's string stars are fine; empty is none", async () => {
    const b = await booking();
    const text = ` \u200B Cafe\u0301 by the river\r\nGreat coach ${"!".repeat(470)}\u00A0`;
    const res = await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: "5", text });
    expect(res.status).toBe(201);
    const written = await body(res);
    expect(written.text).toBe(`Café by the river\nGreat coach ${"!".repeat(470)}`);
    expect(written.stars).toBe(5);
    const hostSide = await review("host", { bookingId: b.id, reviewedUserId: guest.id, stars: 4, text: "   " });
    expect(hostSide.status).toBe(201);
    expect((await body(hostSide)).text).toBeNull();
    const long = await booking();
    expect((await review("guest", { bookingId: long.id, reviewedUserId: host.id, stars: 3, text: "y".repeat(500) })).status).toBe(201);
  });

  test("once per side: a second review of the same booking is 409 and changes nothing", async () => {
    const b = await booking();
    expect((await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 5 })).status).toBe(201);
    const again = await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 1, text: "changed my mind" });
    expect(again.status).toBe(409);
    expect((await body(again)).message).toBe("You have already reviewed this booking.");
    expect((await storedReviews(b.id)).map((r) => r.stars)).toEqual([5]);
  });

  test("two submissions at once write one review", async () => {
    const b = await booking();
    const answers = await Promise.all([1, 2, 3].map(() => review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 4 })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409]);
    expect((await storedReviews(b.id)).length).toBe(1);
  });

  test("the guest's review of the host rates the activity; the host's of the guest does not", async () => {
    const b = await booking();
    await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 5 });
    await review("host", { bookingId: b.id, reviewedUserId: guest.id, stars: 3 });
    const rows = await storedReviews(b.id);
    expect(rows.find((r) => r.reviewerId === guest.id)?.activityId).toBe(activity.id);
    expect(rows.find((r) => r.reviewerId === host.id)?.activityId).toBeNull();
  });

  test("French callers get French messages", async () => {
    const b = await booking("accepted");
    const res = await clients.guest.request("/api/reviews", { method: "POST", json: { bookingId: b.id, reviewedUserId: host.id, stars: 5 }, headers: { "accept-language": "fr" } });
    expect(res.status).toBe(409);
    expect((await body(res)).message).toBe("Vous pourrez évaluer cette réservation une fois l'activité terminée.");
  });
});

describe("double-blind publication and ratings", () => {
  /** A fresh activity so its rating counts only this test's reviews. */
  async function freshActivity() {
    const a = await insert(t.db).activity(activityRow(host, { title: "Blind test" }, now - 10 * DAY));
    const startsAt = Math.floor((now - 3 * HOUR) / HOUR) * HOUR;
    const b = await insert(t.db).booking({ ...bookingRow(a, { guestId: guest.id, startsAt, status: "completed" }), completedAt: now - HOUR });
    return { a, b };
  }
  const ratingOf = async (activityId: string) => {
    const api = await body(await clients.stranger.get(`/api/activities/${activityId}`));
    const list = (await (await clients.stranger.get(`/api/activities/${activityId}/reviews`)).json()) as unknown[];
    const page = await (await clients.stranger.get(`/activity/${activityId}`)).text();
    return { rating: api.rating, count: api.reviewCount, listed: list.length, page };
  };
  /** What the writer's /reviews says of one of their reviews. */
  const visibilityOnMyReviews = async (id: string) => {
    const html = await (await clients.guest.get("/reviews")).text();
    const m = new RegExp(`data-written-review="${id}"[\\s\\S]*?data-visibility="(\\w+)">([^<]*)<`).exec(html);
    return m ? `${m[1]}:${m[2]}` : null;
  };
  const receivedBy = async (user: User) => (await (await clients.stranger.get(`/api/users/by-username/${user.username}/reviews`)).json()) as { stars: number; text: string | null }[];

  test("the first review stays hidden everywhere; the second publishes both at once", async () => {
    // The dates written below are 14 days after this clock, whichever test moved it before.
    now = START;
    const { a, b } = await freshActivity();
    const hostReviewsBefore = (await receivedBy(host)).length;
    const guestReviewsBefore = (await receivedBy(guest)).length;
    events.length = 0;

    const first = await body(await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 4, text: "Hidden for now" }));
    expect(first).toMatchObject({ published: false, visibleBy: b.completedAt! + REVIEW_WINDOW_MS, about: { name: "Maya" }, activityTitle: "Blind test" });
    // Not counted or shown anywhere: activity API, its reviews, its page, the host's profile.
    const hidden = await ratingOf(a.id);
    expect({ rating: hidden.rating, count: hidden.count, listed: hidden.listed }).toEqual({ rating: null, count: 0, listed: 0 });
    expect(hidden.page).toContain("New");
    expect(hidden.page).not.toContain("Hidden for now");
    expect((await receivedBy(host)).length).toBe(hostReviewsBefore);
    const hostProfile = await (await clients.stranger.get(`/profile/${host.username}`)).text();
    expect(hostProfile).not.toContain("Hidden for now");
    // The host cannot see it either; the writer sees it with when it becomes visible.
    expect(await (await clients.host.get("/reviews")).text()).not.toContain("Hidden for now");
    expect(await visibilityOnMyReviews(first.id as string)).toBe("hidden:Visible once Maya has reviewed you or on Dec 6, 2026");
    expect((await one(t.db.select().from(jobs).where(eq(jobs.key, `reviews.publish:${b.id}`))))?.runAt).toBe(b.completedAt! + REVIEW_WINDOW_MS);
    await t.deps.events.idle();
    expect(events.filter((e) => e.type === "reviews.published")).toEqual([]);

    now += HOUR;
    const second = await review("host", { bookingId: b.id, reviewedUserId: guest.id, stars: 5, text: "Great guest" });
    expect(await body(second)).toMatchObject({ published: true, visibleBy: null });
    const rows = await storedReviews(b.id);
    expect(rows.map((r) => r.publishedAt)).toEqual([now, now]);
    // Both visible, the activity rated by the guest's review only, the job no longer needed.
    const shown = await ratingOf(a.id);
    expect({ rating: shown.rating, count: shown.count, listed: shown.listed }).toEqual({ rating: 4, count: 1, listed: 1 });
    expect(shown.page).toContain("★ 4.0 (1)");
    expect(shown.page).toContain("Hidden for now");
    expect((await receivedBy(host)).length).toBe(hostReviewsBefore + 1);
    expect((await receivedBy(guest)).map((r) => r.text)).toContain("Great guest");
    expect((await receivedBy(guest)).length).toBe(guestReviewsBefore + 1);
    expect(await visibilityOnMyReviews(first.id as string)).toBe("published:Published");
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `reviews.publish:${b.id}`)))).toBeUndefined();
    await t.deps.events.idle();
    const published = events.filter((e) => e.type === "reviews.published");
    expect(published.length).toBe(1);
    expect(published[0]!.type === "reviews.published" && published[0]!.reviews.map((r) => r.reviewerId).sort()).toEqual([guest.id, host.id].sort());
  });

  test("alone, a review is published by the durable job 14 days after completion, also after a restart", async () => {
    const { a, b } = await freshActivity();
    expect((await review("host", { bookingId: b.id, reviewedUserId: guest.id, stars: 2, text: "Came late" })).status).toBe(201);
    const deadline = b.completedAt! + REVIEW_WINDOW_MS;

    // The process stops; a new one opens the same database on the same clock.
    const restarted = await makeTestApp({ now: () => now, dataDir: t.dataDir });
    const heard: DomainEvent[] = [];
    restarted.deps.events.on((e) => void heard.push(e));
    now = deadline - 1;
    await restarted.deps.jobs.runDue();
    expect((await storedReviews(b.id))[0]!.publishedAt).toBeNull();

    now = deadline;
    await restarted.deps.jobs.runDue();
    expect((await storedReviews(b.id))[0]!.publishedAt).toBe(deadline);
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `reviews.publish:${b.id}`)))).toBeUndefined();
    await restarted.deps.events.idle();
    const ofThisBooking = () => heard.filter((e) => e.type === "reviews.published" && e.booking.id === b.id);
    expect(ofThisBooking().length).toBe(1);
    // Run again (at least once delivery): nothing changes, nothing announced twice.
    now += HOUR;
    await publishDueReviews(restarted.deps, b.id);
    await restarted.deps.events.idle();
    expect((await storedReviews(b.id))[0]!.publishedAt).toBe(deadline);
    expect(ofThisBooking().length).toBe(1);
    // The guest's window closed at the same instant: too late to answer it.
    const late = await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 1 });
    expect(late.status).toBe(409);
    expect((await receivedBy(guest)).map((r) => r.text)).toContain("Came late");
    // The host's review of the guest does not rate the activity.
    expect((await ratingOf(a.id)).count).toBe(0);
  });

  test("profile and browse averages count published reviews only, to one decimal", async () => {
    const put = insert(t.db);
    const someone = await put.user(userRow({ firstName: "Ola" }));
    const reviewer = await (async () => {
      const c = t.client();
      await c.signInAs(someone.id);
      return c;
    })();
    const a = await put.activity(activityRow(host, { title: "Averages" }, now - 5 * DAY));
    const at = Math.floor((now - 3 * HOUR) / HOUR) * HOUR;
    const stars = [5, 4, 4];
    const ids: string[] = [];
    for (const [i, s] of stars.entries()) {
      const b = await put.booking({ ...bookingRow(a, { guestId: someone.id, startsAt: at - i * DAY, status: "completed" }), completedAt: now - HOUR });
      ids.push(b.id);
      await reviewer.postJson("/api/reviews", { bookingId: b.id, reviewedUserId: host.id, stars: s });
    }
    const card = async () => ((await (await clients.stranger.get(`/api/users/by-username/${host.username}/activities`)).json()) as { id: string; rating: number | null; reviewCount: number }[]).find((x) => x.id === a.id);
    expect(await card()).toMatchObject({ rating: null, reviewCount: 0 });
    // Two of the three hosts answer: those two bookings' reviews are published.
    for (const id of ids.slice(0, 2)) await clients.host.postJson("/api/reviews", { bookingId: id, reviewedUserId: someone.id, stars: 5 });
    expect(await card()).toMatchObject({ rating: 4.5, reviewCount: 2 });
    const profile = await (await clients.stranger.get(`/profile/${someone.username}`)).text();
    expect(profile).toContain("★ 5.0 · 2 reviews");
  });
});

describe("screens", () => {
  test("the review screen: title, the other person, five stars as radios, the counter; strangers see 'Booking not found'", async () => {
    const b = await booking();
    const page = await clients.guest.get(`/review?bookingId=${b.id}&userType=guest`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Leave a Review");
    expect(html).toContain("Sunset tennis");
    expect(html).toContain("Rate your experience with Maya");
    expect(html.match(/type="radio" id="stars-\d" name="stars"/g)?.length).toBe(5);
    expect(html).toContain("5 out of 5 stars");
    expect(html).toContain("0/500 characters");
    expect(html).toContain("Select a star rating before submitting");
    const hostPage = await (await clients.host.get(`/review?bookingId=${b.id}&userType=host`)).text();
    expect(hostPage).toContain("Rate your experience with Noah");

    for (const path of [`/review?bookingId=${b.id}&userType=guest`, "/review", "/review?bookingId=nope"]) {
      const res = await clients.stranger.get(path);
      expect(res.status).toBe(404);
      const text = await res.text();
      expect(text).toContain("Booking not found");
      expect(text).toContain("Back to Bookings");
    }
  });

  test("a booking not reviewable now says why instead of showing the form", async () => {
    const pending = await booking("accepted");
    const early = await (await clients.guest.get(`/review?bookingId=${pending.id}&userType=guest`)).text();
    expect(early).toContain("You can review this booking once the activity is completed.");
    expect(early).not.toContain('name="stars"');
    const b = await booking();
    await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 5 });
    const done = await (await clients.guest.get(`/review?bookingId=${b.id}&userType=guest`)).text();
    expect(done).toContain("You have already reviewed this booking.");
  });

  test("without JavaScript: the form posts, goes to /bookings with 'Review Submitted', or shows the refusal with what was typed", async () => {
    const b = await booking();
    const missing = await clients.guest.postForm("/review", { bookingId: b.id, reviewedUserId: host.id, userType: "guest", text: "Kept text" });
    expect(missing.status).toBe(400);
    const again = await missing.text();
    expect(again).toContain("Please add a rating");
    expect(again).toContain("Kept text");

    const tooLong = await clients.guest.postForm("/review", { bookingId: b.id, reviewedUserId: host.id, stars: "4", text: "z".repeat(501) });
    expect(tooLong.status).toBe(400);
    const refused = await tooLong.text();
    expect(refused).toContain("Error Submitting Review");
    expect(refused).toContain("Your comment can be at most 500 characters.");
    expect(refused).toMatch(/id="stars-4"[^>]*checked/);

    const ok = await clients.guest.postForm("/review", { bookingId: b.id, reviewedUserId: host.id, stars: "4", text: "Fun" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/bookings");
    const list = await (await clients.guest.get("/bookings")).text();
    expect(list).toContain("Review Submitted");
    expect(list).toContain("Thank you for your feedback!");
    expect((await storedReviews(b.id)).map((r) => r.stars)).toEqual([4]);
  });

  test("with htmx: success redirects, a refusal is a toast and the form stays", async () => {
    const b = await booking();
    const hx = { "hx-request": "true" };
    const refused = await clients.guest.postForm("/review", { bookingId: b.id, reviewedUserId: host.id }, hx);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.headers.get("hx-trigger")!)).toEqual({ toast: { title: "Please add a rating", body: "Select a star rating before submitting", variant: "error" } });
    const gone = await clients.stranger.postForm("/review", { bookingId: b.id, reviewedUserId: host.id, stars: "3" }, hx);
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.headers.get("hx-trigger")!).toast).toMatchObject({ title: "Error Submitting Review", body: "Booking not found" });
    const ok = await clients.guest.postForm("/review", { bookingId: b.id, reviewedUserId: host.id, stars: "3" }, hx);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("hx-redirect")).toBe("/bookings");
  });

  test("the bookings list offers 'Leave a Review' while a completed booking may be reviewed", async () => {
    const b = await booking();
    const link = `/review?bookingId=${b.id}&amp;userType=guest`;
    expect(await (await clients.guest.get("/bookings")).text()).toContain(link);
    expect(await (await clients.host.get("/bookings")).text()).toContain(`/review?bookingId=${b.id}&amp;userType=host`);
    await review("guest", { bookingId: b.id, reviewedUserId: host.id, stars: 5 });
    expect(await (await clients.guest.get("/bookings")).text()).not.toContain(link);
    const old = await booking("completed", 20 * DAY);
    expect(await (await clients.guest.get("/bookings")).text()).not.toContain(`/review?bookingId=${old.id}`);
  });

  test("/reviews: received and written, with empty states", async () => {
    const c = t.client();
    await c.signInAs((await insert(t.db).user(userRow())).id);
    const html = await (await c.get("/reviews")).text();
    expect(html).toContain("Received");
    expect(html).toContain("No reviews yet. Reviews about you appear here once they are published.");
    expect(html).toContain("written any reviews yet. After an activity, leave one from your bookings.");
    const fr = await (await c.get("/reviews", { "accept-language": "fr" })).text();
    expect(fr).toContain("encore écrit aucun avis.");
  });
});
