import { chronological } from "../src/bookings/order";
import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, ne, type SQL } from "drizzle-orm";
import { activityRow, insert, userRow } from "../src/demo/factories";
import { activities, bookings, jobs, ledgerEntries, messages, reports, sessions, users, type Activity, type User } from "../db/schema";
import type { DomainEvent } from "../src/events";
import { RateLimiter } from "../lib/rate-limit";
import { instantAcceptJob, schedule } from "../src/bookings/jobs";
import { jobKeys } from "../src/bookings/keys";
import { Client, makeTestApp, requestWithTestCard } from "./helpers";
import { moneyViolations } from "./money-invariants";
import { scenarios, shown, type Scenario } from "./scenario";

/**
 * Reports and moderation (docs/decisions/0024): the rules of filing a report, the Report control
 * with and without JavaScript, the operators' page refused to everyone else, and what each
 * moderation action does.
 */
const HOUR = 60 * 60 * 1000;
// 2026-06-01 12:00 in New York.
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;

let t: Awaited<ReturnType<typeof makeTestApp>>;
const events: DomainEvent[] = [];
let reporter: User;
let target: User;
let activity: Activity;
let reporterClient: Client;
let operatorClient: Client;
let operator: User;

const body = async (res: Response) => (await res.json()) as Record<string, any>;

beforeAll(async () => {
  t = await makeTestApp({ now: () => clock, env: { ADMIN_EMAILS: "ops@offline.test, Second@Offline.test" }, limits: { reportsByUser: new RateLimiter(1000, HOUR) } });
  t.deps.events.on((e) => void events.push(e));
  const put = insert(t.db);
  reporter = await put.user(userRow({ firstName: "Rita" }));
  target = await put.user(userRow({ firstName: "Tony" }));
  operator = await put.user(userRow({ firstName: "Olga", email: "ops@offline.test" }));
  activity = await put.activity(activityRow(target, { title: "Suspicious tour" }, clock - 1000));
  reporterClient = t.client();
  await reporterClient.signInAs(reporter.id);
  operatorClient = t.client();
  await operatorClient.signInAs(operator.id);
});
afterAll(() => t.cleanup());

const openReports = async () => await t.db.select().from(reports).where(eq(reports.status, "pending"));
const openReportsWhere = async (where: SQL | undefined) => await t.db.select().from(reports).where(and(eq(reports.status, "pending"), where));

/** Rita's reports about Tony and his activity, as the first test files them: made here when missing, so the tests after it pass alone too. */
async function ritaReported() {
  if (!(await openReportsWhere(and(eq(reports.reporterId, reporter.id), eq(reports.targetUserId, target.id)))).length) {
    expect((await reporterClient.postJson("/api/reports", { targetUserId: target.id, reason: "harassment" })).status).toBe(201);
  }
  if (!(await openReportsWhere(and(eq(reports.reporterId, reporter.id), eq(reports.targetActivityId, activity.id)))).length) {
    expect((await reporterClient.postJson("/api/reports", { targetActivityId: activity.id, reason: "scam_or_fraud" })).status).toBe(201);
  }
}

/** Every report the filing tests leave: Rita's two and someone else's about Tony (made when missing). */
async function filedReports() {
  await ritaReported();
  if (!(await openReportsWhere(and(ne(reports.reporterId, reporter.id), eq(reports.targetUserId, target.id)))).length) {
    const other = t.client();
    await other.signInAs((await insert(t.db).user(userRow())).id);
    expect((await other.postJson("/api/reports", { targetUserId: target.id, reason: "other" })).status).toBe(201);
  }
}

describe("filing a report", () => {
  test("a person or an activity, with a reason and notes: pending, as the spec's call answers", async () => {
    const res = await reporterClient.postJson("/api/reports", { targetUserId: target.id, reason: "harassment", notes: "  Rude messages\r\nafter the class  " });
    expect(res.status).toBe(201);
    expect(await body(res)).toMatchObject({ targetUserId: target.id, targetActivityId: null, reason: "harassment", notes: "Rude messages\nafter the class", status: "pending" });
    const onActivity = await reporterClient.postJson("/api/reports", { targetActivityId: activity.id, reason: "scam_or_fraud" });
    expect(onActivity.status).toBe(201);
    expect(await body(onActivity)).toMatchObject({ targetActivityId: activity.id, notes: null, status: "pending" });
  });

  test("one open report per reporter and target: a second is 409 with a clear message", async () => {
    await ritaReported();
    const again = await reporterClient.postJson("/api/reports", { targetUserId: target.id, reason: "other" });
    expect(again.status).toBe(409);
    expect((await body(again)).message).toBe("You have already reported this. Our team is looking at it.");
    // Someone else may report the same person.
    const other = t.client();
    await other.signInAs((await insert(t.db).user(userRow())).id);
    expect((await other.postJson("/api/reports", { targetUserId: target.id, reason: "other" })).status).toBe(201);
  });

  const refusals: [Record<string, unknown>, number, string][] = [
    [{ reason: "other" }, 400, "Say who or what you are reporting."],
    [{ targetUserId: "T", targetActivityId: "A", reason: "other" }, 400, "Say who or what you are reporting."],
    [{ targetUserId: "T" }, 400, "Choose a reason for your report."],
    [{ targetUserId: "T", reason: "ugly" }, 400, "Choose a reason for your report."],
    [{ targetUserId: "T", reason: "other", notes: "n".repeat(501) }, 400, "Your notes can be at most 500 characters."],
    [{ targetUserId: "T", reason: "other", notes: 5 }, 400, "The notes must be text."],
    [{ targetUserId: "00000000-0000-4000-8000-000000000000", reason: "other" }, 404, "We couldn't find what you are reporting."],
    [{ targetActivityId: "not-an-id", reason: "other" }, 404, "We couldn't find what you are reporting."],
    [{ targetUserId: "ME", reason: "fake_profile" }, 400, "You can't report yourself or your own activity."],
  ];
  scenarios(
    () => t,
    refusals.map(([input, status, message]): Scenario => {
      let fresh: User;
      const sub = (v: unknown) => (v === "T" ? fresh.id : v === "A" ? activity.id : v === "ME" ? reporter.id : v);
      return {
        name: `${shown(input)} → ${status} ${message}`,
        before: async () => void (fresh = await insert(t.db).user(userRow())),
        as: () => reporterClient,
        method: "POST",
        url: "/api/reports",
        body: () => ({ ...input, targetUserId: sub(input.targetUserId), targetActivityId: sub(input.targetActivityId) }),
        status,
        json: { message },
        unchanged: async () => (await t.db.select().from(reports)).length,
      };
    }),
  );

  test("nobody reports their own activity; signed-out visitors are asked to sign in", async () => {
    const host = t.client();
    await host.signInAs(target.id);
    expect((await host.postJson("/api/reports", { targetActivityId: activity.id, reason: "other" })).status).toBe(400);
    expect((await t.client().postJson("/api/reports", { targetActivityId: activity.id, reason: "other" })).status).toBe(401);
  });

  test("rate-limited per person: 429 with Retry-After, in the caller's language", async () => {
    const limited = await makeTestApp({ now: () => clock, limits: { reportsByUser: new RateLimiter(2, HOUR) } });
    const put = insert(limited.db);
    const me = await put.user(userRow());
    const c = limited.client();
    await c.signInAs(me.id);
    for (let i = 0; i < 2; i++) expect((await c.postJson("/api/reports", { targetUserId: (await put.user(userRow())).id, reason: "other" })).status).toBe(201);
    const third = await c.request("/api/reports", { method: "POST", json: { targetUserId: (await put.user(userRow())).id, reason: "other" }, headers: { "accept-language": "fr" } });
    expect(third.status).toBe(429);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await body(third)).message).toBe("Vous avez envoyé beaucoup de signalements récemment. Réessayez plus tard.");
    limited.cleanup();
  });
});

describe("the Report control", () => {
  test("on an activity page and a public profile, not on one's own; the form works without JavaScript", async () => {
    const fresh = await insert(t.db).activity(activityRow(target, { title: "Kayak" }, clock - 500));
    const page = await (await reporterClient.get(`/activity/${fresh.id}`)).text();
    expect(page).toContain("Report this activity");
    expect(page).toContain(`name="targetActivityId" value="${fresh.id}"`);
    for (const reason of ["Inappropriate content", "Scam or fraud", "Safety concern", "Harassment", "Fake profile", "Other"]) expect(page).toContain(reason);
    expect(page).toContain("0/500 characters");
    const profile = await (await reporterClient.get(`/profile/${target.username}`)).text();
    expect(profile).toContain("Report this person");
    expect(profile).toContain(`name="targetUserId" value="${target.id}"`);
    const host = t.client();
    await host.signInAs(target.id);
    expect(await (await host.get(`/activity/${fresh.id}`)).text()).not.toContain("Report this activity");
    expect(await (await host.get(`/profile/${target.username}`)).text()).not.toContain("Report this person");
    expect(await (await reporterClient.get(`/activity/${fresh.id}`, { "accept-language": "fr" })).text()).toContain("Signaler cette activité");

    // No JavaScript: the form posts and comes back to the page with the confirmation.
    const sent = await reporterClient.postForm("/api/reports", { targetActivityId: fresh.id, reason: "safety_concern", notes: "", next: `/activity/${fresh.id}` });
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe(`/activity/${fresh.id}`);
    const back = await (await reporterClient.get(`/activity/${fresh.id}`)).text();
    expect(back).toContain("Report sent");
    const twice = await reporterClient.postForm("/api/reports", { targetActivityId: fresh.id, reason: "safety_concern", next: `/activity/${fresh.id}` });
    expect(twice.status).toBe(303);
    const refused = await (await reporterClient.get(`/activity/${fresh.id}`)).text();
    expect(refused).toContain("Report not sent");
    expect(refused).toContain("You have already reported this.");
  });

  test("with htmx: the confirmation replaces the form; a refusal is a toast", async () => {
    const fresh = await insert(t.db).activity(activityRow(target, { title: "Boat" }, clock - 400));
    const hx = { "hx-request": "true" };
    const sent = await reporterClient.postForm("/api/reports", { targetActivityId: fresh.id, reason: "other", next: "/" }, hx);
    expect(sent.status).toBe(200);
    const fragment = await sent.text();
    expect(fragment).toContain('role="status"');
    expect(fragment).toContain("Thank you. Our team will look at it");
    const again = await reporterClient.postForm("/api/reports", { targetActivityId: fresh.id, reason: "other", next: "/" }, hx);
    expect(again.status).toBe(409);
    expect(JSON.parse(again.headers.get("hx-trigger")!).toast).toEqual({ title: "Report not sent", body: "You have already reported this. Our team is looking at it.", variant: "error" });
  });
});

describe("the operators' page", () => {
  test("refused to everyone else with 404, signed out, signed in, or unfinished profile", async () => {
    await filedReports();
    const unfinished = t.client();
    await unfinished.signInAs((await insert(t.db).user(userRow({}, { complete: false }))).id);
    const pending = (await openReports())[0]!;
    for (const c of [t.client(), reporterClient, unfinished]) {
      const page = await c.get("/admin/reports");
      expect(page.status).toBe(404);
      expect(await page.text()).not.toContain("Waiting for review");
      const act = await c.request(`/admin/reports/${pending.id}/dismiss`, { method: "POST", form: { _csrf: c.csrf } });
      expect(act.status).toBe(404);
    }
    expect((await one(t.db.select().from(reports).where(eq(reports.id, pending.id))))!.status).toBe("pending");
  });

  test("lists pending reports newest first with their target and context; any listed email is an operator", async () => {
    await filedReports();
    clock += HOUR;
    const latest = await reporterClient.postJson("/api/reports", { targetUserId: (await insert(t.db).user(userRow({ firstName: "Newest" }))).id, reason: "fake_profile", notes: "Photos from a stock site" });
    const page = await operatorClient.get("/admin/reports");
    expect(page.status).toBe(200);
    const html = await page.text();
    const first = /data-report-id="([^"]+)"/.exec(html)![1];
    expect(first).toBe((await body(latest)).id);
    expect(html).toContain("Photos from a stock site");
    expect(html).toContain(`Reported by Rita Rivera (${reporter.email})`);
    expect(html).toContain(`href="/activity/${activity.id}"`);
    expect(html).toContain(`href="/profile/${target.username}"`);
    // Tony was reported twice (by Rita and by someone else): both open.
    expect(html).toContain("2 open · 2 in all about this target");
    expect(html).toContain("Suspend Tony");
    expect(html).toContain("Hide the activity");

    const second = t.client();
    await second.signInAs((await insert(t.db).user(userRow({ email: "second@offline.test" }))).id);
    expect((await second.get("/admin/reports")).status).toBe(200);
  });

  test("nobody becomes an operator by changing their email to a listed address", async () => {
    const c = t.client();
    const { password } = await c.signUpComplete();
    for (const email of ["ops@offline.test", "OPS@offline.test"]) {
      const res = await c.putJson("/api/user/email", { email, currentPassword: password });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { fields: { email: string } }).fields.email).toBe("This email address is reserved. Please use another one.");
    }
    expect((await c.get("/admin/reports")).status).toBe(404);
  });
});

describe("moderation actions", () => {
  const reportAbout = async (input: Record<string, unknown>, by = reporterClient) => (await body(await by.postJson("/api/reports", { reason: "other", ...input }))).id as string;
  const act = (id: string, action: string) => operatorClient.request(`/admin/reports/${id}/${action}`, { method: "POST", form: { _csrf: operatorClient.csrf } });
  const reportRow = async (id: string) => (await one(t.db.select().from(reports).where(eq(reports.id, id))))!;

  test("dismiss: the report is resolved with who and when, nothing else changes; the reporter may report again", async () => {
    const someone = await insert(t.db).user(userRow({ firstName: "Dan" }));
    const id = await reportAbout({ targetUserId: someone.id });
    clock += 1000;
    const res = await act(id, "dismiss");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/admin/reports");
    expect(await reportRow(id)).toMatchObject({ status: "resolved", resolution: "dismissed", reviewedBy: operator.id, reviewedAt: clock });
    expect((await one(t.db.select().from(users).where(eq(users.id, someone.id))))!.suspendedAt).toBeNull();
    const html = await (await operatorClient.get("/admin/reports")).text();
    expect(html).toContain("Done");
    expect(html).toContain("The report was dismissed.");
    expect(html).not.toContain(`data-report-id="${id}"`);
    expect(html).toContain(`data-handled-report="${id}"`);
    expect(html).toContain("Dismissed by Olga Rivera");
    // Handled once: acting again says so.
    await act(id, "dismiss");
    expect(await (await operatorClient.get("/admin/reports")).text()).toContain("This report was already handled.");
    expect((await reporterClient.postJson("/api/reports", { targetUserId: someone.id, reason: "other" })).status).toBe(201);
  });

  test("hide: the activity leaves browse, its page and its host's profile; its open reports are resolved", async () => {
    const hidden = await insert(t.db).activity(activityRow(target, { title: "Hide me" }, clock - 100));
    const byRita = await reportAbout({ targetActivityId: hidden.id });
    const other = t.client();
    await other.signInAs((await insert(t.db).user(userRow())).id);
    const byOther = await reportAbout({ targetActivityId: hidden.id }, other);
    const browseIds = async () => ((await (await reporterClient.get("/api/activities?city=New%20York")).json()) as { id: string }[]).map((a) => a.id);
    expect(await browseIds()).toContain(hidden.id);

    clock += 1000;
    expect((await act(byRita, "hide")).status).toBe(303);
    expect((await one(t.db.select().from(activities).where(eq(activities.id, hidden.id))))!.hiddenAt).toBe(clock);
    expect(await reportRow(byRita)).toMatchObject({ status: "resolved", resolution: "activity_hidden", reviewedBy: operator.id, reviewedAt: clock });
    expect(await reportRow(byOther)).toMatchObject({ status: "resolved", resolution: "activity_hidden" });
    expect(await browseIds()).not.toContain(hidden.id);
    expect(await (await reporterClient.get("/")).text()).not.toContain("Hide me");
    expect((await reporterClient.get(`/activity/${hidden.id}`)).status).toBe(404);
    expect((await reporterClient.get(`/api/activities/${hidden.id}`)).status).toBe(404);
    const theirs = (await (await reporterClient.get(`/api/users/by-username/${target.username}/activities`)).json()) as { id: string }[];
    expect(theirs.map((a) => a.id)).not.toContain(hidden.id);
    // Its host still sees it on their dashboard, marked, and can no longer edit it.
    const host = t.client();
    await host.signInAs(target.id);
    const dashboard = await (await host.get("/host/activities")).text();
    expect(dashboard).toContain("Hide me");
    expect(dashboard).toContain("Hidden after a report: guests no longer see it.");
    expect(dashboard).not.toContain(`/edit-activity/${hidden.id}`);
    expect((await host.get(`/edit-activity/${hidden.id}`)).status).toBe(404);
    // A person's report cannot hide an activity.
    const aboutPerson = await reportAbout({ targetUserId: (await insert(t.db).user(userRow())).id });
    await act(aboutPerson, "hide");
    expect((await reportRow(aboutPerson)).status).toBe("pending");
    expect(await (await operatorClient.get("/admin/reports")).text()).toContain("This report is not about an activity.");
  });

  test("an operator cannot suspend themself; unknown reports and actions are 404", async () => {
    const aboutMe = await reportAbout({ targetUserId: operator.id });
    await act(aboutMe, "suspend");
    expect((await reportRow(aboutMe)).status).toBe("pending");
    expect((await one(t.db.select().from(users).where(eq(users.id, operator.id))))!.suspendedAt).toBeNull();
    expect((await operatorClient.request(`/admin/reports/${aboutMe}/explode`, { method: "POST", form: { _csrf: operatorClient.csrf } })).status).toBe(404);
    expect((await operatorClient.request(`/admin/reports/${aboutMe}/toString`, { method: "POST", form: { _csrf: operatorClient.csrf } })).status).toBe(404);
    const unknown = await operatorClient.request("/admin/reports/00000000-0000-4000-8000-000000000000/dismiss", { method: "POST", json: {} });
    expect(unknown.status).toBe(404);
    expect((await body(unknown)).message).toBe("This report does not exist.");
    await act(aboutMe, "dismiss");
  });
});

describe("suspending a person", () => {
  // Real bookings through the booking rules, with the test provider's money.
  let host: Client;
  let hostId: string;
  let guest: Client;
  let hostActivityId: string;
  let guestActivityId: string;
  let day = 2;

  async function book(c: Client, activityId: string) {
    const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
    const slot = { date, time: "10:00", hours: 2, total: (40 * 2 * 1.1).toFixed(2) };
    const intent = await body(await c.postJson("/api/create-payment-intent", { amount: slot.total, metadata: { activityId, date, time: slot.time, duration: "2" } }));
    await c.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, cardNumber: "4242424242424242", expiry: "12/30", cvc: "123" });
    const res = await c.postJson("/api/bookings", { activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: slot.total, paymentIntentId: intent.paymentIntentId });
    expect(res.status).toBe(201);
    return (await body(res)).id as string;
  }
  const statusOf = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
  const ledgerOf = async (id: string) => (await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => l.kind).sort();
  const systemOf = async (id: string) => (await t.db.select().from(messages).where(and(eq(messages.bookingId, id), eq(messages.isSystemMessage, true))).orderBy(...chronological)).map((m) => `${m.systemMessageType}:${m.senderId ?? "system"}`);

  beforeAll(async () => {
    host = t.client();
    hostId = (await host.signUpComplete({ email: "suspect@example.com", firstName: "Victor" })).user.id;
    guest = t.client();
    await guest.signUpComplete();
    const make = async (c: Client) => (await body(await c.postJson("/api/activities", { title: "Rowing", description: "Two hours on the river.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" }))).id as string;
    hostActivityId = await make(host);
    guestActivityId = await make(guest);
  });

  test("signed out everywhere, no sign-in, activities and profile gone, open bookings released by the booking rules", async () => {
    // Victor as host: a request waiting, an accepted booking ahead. Victor as guest: a request sent, an accepted booking ahead.
    const requestToVictor = await book(guest, hostActivityId);
    const acceptedWithVictor = await book(guest, hostActivityId);
    expect((await host.postJson(`/api/bookings/${acceptedWithVictor}/accept`, {})).status).toBe(200);
    const requestByVictor = await book(host, guestActivityId);
    const victorBooked = await book(host, guestActivityId);
    expect((await guest.postJson(`/api/bookings/${victorBooked}/accept`, {})).status).toBe(200);
    // One already under way stays, to be completed as usual.
    const underWay = await book(guest, hostActivityId);
    expect((await host.postJson(`/api/bookings/${underWay}/accept`, {})).status).toBe(200);
    await writeTransaction(t.db, (tx) => tx.update(bookings).set({ startsAt: clock - HOUR, endsAt: clock + HOUR }).where(eq(bookings.id, underWay)));

    const aboutActivity = await (await reporterClient.postJson("/api/reports", { targetActivityId: hostActivityId, reason: "scam_or_fraud" })).json() as { id: string };
    const aboutVictor = await (await reporterClient.postJson("/api/reports", { targetUserId: hostId, reason: "harassment" })).json() as { id: string };
    expect((await t.db.select().from(sessions).where(eq(sessions.userId, hostId))).length).toBeGreaterThan(0);
    events.length = 0;

    clock += 1000;
    // Suspended through the report about the activity: its host is the person.
    const res = await operatorClient.request(`/admin/reports/${aboutActivity.id}/suspend`, { method: "POST", form: { _csrf: operatorClient.csrf } });
    expect(res.status).toBe(303);
    await t.deps.events.idle();

    expect((await one(t.db.select().from(users).where(eq(users.id, hostId))))!.suspendedAt).toBe(clock);
    for (const id of [aboutActivity.id, aboutVictor.id]) {
      expect(await one(t.db.select().from(reports).where(eq(reports.id, id)))).toMatchObject({ status: "resolved", resolution: "user_suspended", reviewedBy: operator.id, reviewedAt: clock });
    }
    // Sessions ended, and said so.
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, hostId))).toEqual([]);
    expect(events).toContainEqual({ type: "sessions.ended", userId: hostId, sessionIds: "all" });
    expect((await host.get("/api/auth/user")).status).toBe(401);
    // No sign-in, with a clear message (only for the right password).
    const login = await t.client().postJson("/api/login", { email: "suspect@example.com", password: "secret123" });
    expect(login.status).toBe(403);
    expect((await body(login)).message).toBe("This account has been suspended. Contact support if you think this is a mistake.");
    const wrong = await t.client().postJson("/api/login", { email: "suspect@example.com", password: "not-it-at-all" });
    expect(wrong.status).toBe(401);
    const form = await t.client().postForm("/api/login", { email: "suspect@example.com", password: "secret123" });
    expect(form.status).toBe(403);
    expect(await form.text()).toContain("This account has been suspended.");
    // A session made by other means is refused too.
    const sneaky = t.client();
    await sneaky.signInAs(hostId);
    expect((await sneaky.get("/api/auth/user")).status).toBe(401);

    // Their activities and profile are gone.
    expect((await t.db.select().from(activities).where(eq(activities.hostId, hostId))).every((a) => a.hiddenAt === clock)).toBe(true);
    expect((await reporterClient.get(`/activity/${hostActivityId}`)).status).toBe(404);
    const browse = (await (await reporterClient.get("/api/activities?city=New%20York")).json()) as { id: string }[];
    expect(browse.map((a) => a.id)).not.toContain(hostActivityId);
    const victor = (await one(t.db.select().from(users).where(eq(users.id, hostId))))!;
    expect((await reporterClient.get(`/profile/${victor.username}`)).status).toBe(404);

    // Bookings: declined and withdrawn requests released, accepted ones ahead refunded in full, system messages from no one.
    expect(await statusOf(requestToVictor)).toMatchObject({ status: "rejected" });
    expect(await ledgerOf(requestToVictor)).toEqual(["authorize", "release"]);
    expect(await systemOf(requestToVictor)).toContain("booking_declined:system");
    expect(await statusOf(requestByVictor)).toMatchObject({ status: "canceled", canceledBy: "guest" });
    expect(await ledgerOf(requestByVictor)).toEqual(["authorize", "release"]);
    expect(await statusOf(acceptedWithVictor)).toMatchObject({ status: "canceled", canceledBy: "host" });
    expect(await ledgerOf(acceptedWithVictor)).toEqual(["authorize", "capture", "refund"]);
    expect(await systemOf(acceptedWithVictor)).toContain("booking_canceled:system");
    expect(await statusOf(victorBooked)).toMatchObject({ status: "canceled", canceledBy: "guest" });
    expect(await ledgerOf(victorBooked)).toEqual(["authorize", "capture", "refund"]);
    expect(await statusOf(underWay)).toMatchObject({ status: "accepted" });
    const changed = events.filter((e) => e.type === "booking.changed").length;
    expect(changed).toBe(4);

    // The durable job that would retry finds nothing left to do.
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `moderation.release:${hostId}`)))).toBeDefined();
    await t.deps.jobs.runDue();
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `moderation.release:${hostId}`)))).toBeUndefined();
    await t.deps.events.idle();
    expect(events.filter((e) => e.type === "booking.changed").length).toBe(changed);
    expect(await statusOf(underWay)).toMatchObject({ status: "accepted" });
  });
});

describe("a suspended person's request is never charged, even before the release of their bookings has run", () => {
  // The suspension is written; the release of the person's bookings has not run yet (the
  // provider did not answer it, its job is still to come). Whatever would take the money checks
  // the suspension itself.
  let host: Client;
  let hostId: string;
  let activityId: string;
  let day = 20;

  beforeAll(async () => {
    host = t.client();
    hostId = (await host.signUpComplete()).user.id;
    activityId = (await body(await host.postJson("/api/activities", { title: "Kayaking", description: "Two hours on the lake.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" }))).id;
  });

  /** A new guest's request to the host's activity, their card held. */
  async function request() {
    const guest = t.client();
    const guestId = (await guest.signUpComplete()).user.id as string;
    const date = new Date(START + day++ * 24 * HOUR).toISOString().slice(0, 10);
    const { res } = await requestWithTestCard(guest, { activityId, date, hours: 2, total: "88.00" });
    expect(res.status).toBe(201);
    return { id: (await body(res)).id as string, guestId };
  }
  const suspendedNow = (userId: string) => writeTransaction(t.db, (tx) => tx.update(users).set({ suspendedAt: clock }).where(eq(users.id, userId)));
  const bookingOf = async (id: string) => (await one(t.db.select().from(bookings).where(eq(bookings.id, id))))!;
  const ledgerOf = async (id: string) => (await t.db.select().from(ledgerEntries).where(eq(ledgerEntries.bookingId, id))).map((l) => l.kind).sort();

  test("the host's Accept is refused: the request ends withdrawn, the guest's card released", async () => {
    const { id, guestId } = await request();
    await suspendedNow(guestId);
    const res = await host.postJson(`/api/bookings/${id}/accept`, {});
    expect(res.status).toBe(409);
    expect((await body(res)).message).toBe("This request has already been answered or has ended.");
    expect(await bookingOf(id)).toMatchObject({ status: "canceled", canceledBy: "guest", claim: null });
    expect(await ledgerOf(id)).toEqual(["authorize", "release"]);
    expect(await moneyViolations(t.deps, [id])).toEqual([]);
  });

  for (const side of ["guest", "host"] as const) {
    test(`the instant accept of a request whose ${side} is suspended ends it instead of capturing the card`, async () => {
      const { id, guestId } = await request();
      await suspendedNow(side === "guest" ? guestId : hostId);
      try {
        // As if the request had been an instant one whose accept had not run yet.
        await writeTransaction(t.db, (tx) => schedule(tx, instantAcceptJob, { bookingId: id }, { at: clock, key: jobKeys.instantAccept(id) }));
        expect(await t.deps.jobs.runNow([jobKeys.instantAccept(id)])).toBe(1);
        expect(await one(t.db.select().from(jobs).where(eq(jobs.key, jobKeys.instantAccept(id))))).toBeUndefined();
        expect(await bookingOf(id)).toMatchObject(side === "guest" ? { status: "canceled", canceledBy: "guest", claim: null } : { status: "rejected", claim: null });
        expect(await ledgerOf(id)).toEqual(["authorize", "release"]);
        expect(await moneyViolations(t.deps, [id])).toEqual([]);
      } finally {
        if (side === "host") await writeTransaction(t.db, (tx) => tx.update(users).set({ suspendedAt: null }).where(eq(users.id, hostId)));
      }
    });
  }
});
