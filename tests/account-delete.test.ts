import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SQL } from "bun";
import { and, eq } from "drizzle-orm";
import { engineOf, one, writeTransaction, writerClient } from "../db/client";
import { accountDeletions, activities, bookings, dataExports, jobs, messages, notificationPreferences, oauthAccounts, reviews, sessions, users, type BookingClaim } from "../db/schema";
import { bookingRow, groupActivityRow, insert, userRow } from "../src/demo/factories";
import { changeCalendarFeed, feedUrl } from "../src/availability/feed";
import { unsubscribeUrl } from "../src/email/unsubscribe";
import { findOrCreateOAuthUser, signInWithProvider } from "../src/auth/service";
import { bookingParties, ledgerLines, makeTestApp, outboxEmails, pathOfLink, settled, TENNIS, TEST_CARD, until, verifyEmailOf, type Client } from "./helpers";
import { moneyViolations } from "./money-invariants";

/**
 * Deleting an account (docs/decisions/0057), through `app.handle` on either engine: refused while
 * anything is open, one transaction for the rows and a job for the files, what the other side
 * reads afterwards, the old links, sign-in, the freed email and username, the money kept.
 */
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
// 2026-06-01 12:00 in New York.
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;
const OPERATOR = "ops@example.com";

let t: Awaited<ReturnType<typeof makeTestApp>>;
beforeAll(async () => {
  t = await makeTestApp({ now, env: { ADMIN_EMAILS: OPERATOR } });
});
afterAll(() => t.cleanup());

const body = async (res: Response) => (await res.json()) as Record<string, any>;
const userOf = async (id: string) => (await one(t.db.select().from(users).where(eq(users.id, id))))!;

/** A booking request through the date-time flow (intent, card, booking), `days` ahead at 10:00. */
async function requestBooking(guest: Client, activityId: string, days: number) {
  const date = new Date(START + days * DAY).toISOString().slice(0, 10);
  const intent = await body(await guest.postJson("/api/create-payment-intent", { amount: "88.00", metadata: { activityId, date, time: "10:00", duration: "2" } }));
  await guest.postJson("/api/payments/test/confirm", { clientSecret: intent.clientSecret, ...TEST_CARD });
  const res = await guest.postJson("/api/bookings", { activityId, proposedDatetime: `${date}T10:00:00`, durationHours: 2, priceTotal: "88.00", paymentIntentId: intent.paymentIntentId });
  expect(res.status).toBe(201);
  return (await body(res)).id as string;
}

/** What must not change when a deletion is refused: the person's row, their sessions. */
async function snapshot(id: string) {
  const u = await userOf(id);
  const s = await t.db.select({ sid: sessions.sid }).from(sessions).where(eq(sessions.userId, id));
  return { email: u.email, username: u.username, firstName: u.firstName, deletedAt: u.deletedAt, sessions: s.length };
}

/** Runs the due jobs until none is left that may run now (the file job, the goodbye email). */
async function runJobs() {
  await settled(t.deps);
  while ((await t.deps.jobs.runDue()) > 0);
}

describe("a guest and a host with history", () => {
  let host: Client, guest: Client, stranger: Client;
  let hostId: string, guestId: string, activityId: string;
  let guestEmail: string, guestUsername: string, guestPhoto: string;
  let bookingId: string;

  beforeAll(async () => {
    clock = START;
    ({ host, guest, stranger, hostId, guestId, activityId } = await bookingParties(t, { guest: { firstName: "Gwendolyn" }, host: { firstName: "Horatio" } }));
    const g = await userOf(guestId);
    guestEmail = g.email!;
    guestUsername = g.username!;
    guestPhoto = g.photo!;
  });

  test("refused while a booking is pending, for either side, and nothing changes", async () => {
    bookingId = await requestBooking(guest, activityId, 2);
    const before = await snapshot(guestId);
    const refused = await guest.postJson("/api/account/delete", { password: "secret123" });
    expect(refused.status).toBe(409);
    const answer = await body(refused);
    expect(answer.message).toBe("Your account cannot be deleted yet: finish what is still open first.");
    expect(answer.open).toEqual([expect.objectContaining({ kind: "booking", bookingId, href: `/bookings/${bookingId}`, message: "Tennis: a booking is still pending or accepted. Cancel it, or wait until it is over." })]);
    expect(await snapshot(guestId)).toEqual(before);
    expect((await host.postJson("/api/account/delete", { password: "secret123" })).status).toBe(409);
    // The screen says what to finish first, with the link.
    const screen = await (await guest.get("/settings/delete-account")).text();
    expect(screen).toContain("Finish these first");
    expect(screen).toContain(`href="/bookings/${bookingId}"`);
  });

  test("refused while it is accepted; the screen's plain form is drawn again with why", async () => {
    expect((await host.postJson(`/api/bookings/${bookingId}/accept`, {})).status).toBe(200);
    const res = await guest.postForm("/settings/delete-account", { password: "secret123" });
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain("Your account cannot be deleted yet");
    expect(html).toContain(`href="/bookings/${bookingId}"`);
    expect((await userOf(guestId)).deletedAt).toBeNull();
  });

  test("once completed, the host is still refused while their payout is owed", async () => {
    // A message and reviews both ways, for the other side's history.
    expect((await guest.postJson("/api/messages", { bookingId, content: "See you at the courts!" })).status).toBe(201);
    const row = (await one(t.db.select().from(bookings).where(eq(bookings.id, bookingId))))!;
    clock = row.endsAt + HOUR;
    expect((await host.postJson(`/api/bookings/${bookingId}/complete`, {})).status).toBe(200);
    expect((await guest.postJson(`/api/reviews?bookingId=${bookingId}`, { bookingId, reviewedUserId: hostId, stars: 5, text: "A great partner at tennis." })).status).toBe(201);
    expect((await host.postJson(`/api/reviews?bookingId=${bookingId}`, { bookingId, reviewedUserId: guestId, stars: 4, text: "Gwendolyn plays well." })).status).toBe(201);
    const refused = await body(await host.postJson("/api/account/delete", { password: "secret123" }));
    expect(refused.open).toEqual([expect.objectContaining({ kind: "payout", bookingId, href: "/stripe-connect-setup" })]);
  });

  test("a wrong password is refused and changes nothing", async () => {
    const before = await snapshot(guestId);
    const res = await guest.postJson("/api/account/delete", { password: "not-my-password" });
    expect(res.status).toBe(403);
    expect((await body(res)).message).toBe("This password is not right. Nothing was deleted.");
    expect((await guest.postJson("/api/account/delete", {})).status).toBe(400);
    expect(await snapshot(guestId)).toEqual(before);
    expect(before.sessions).toBeGreaterThan(0);
  });

  test("the guest deletes their account from the screen: signed out, a goodbye email, the log", async () => {
    await changeCalendarFeed(t.deps, guestId, "on");
    const feed = pathOfLink(feedUrl(t.deps, await userOf(guestId))!);
    expect((await stranger.get(feed)).status).toBe(200);
    const unsubscribe = pathOfLink(unsubscribeUrl(t.deps, guestId, "messages"));
    const ledgerBefore = await ledgerLines(t.db, bookingId);
    // Pages drawn before, with their kept parts: the activity's reviews name the guest.
    const hostUsername = (await userOf(hostId)).username!;
    expect(await (await stranger.get(`/activity/${activityId}`)).text()).toContain("Gwendolyn");
    expect(await (await stranger.get(`/profile/${hostUsername}`)).text()).toContain("Gwendolyn");

    const res = await guest.postForm("/settings/delete-account", { password: "secret123" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/account-deleted");
    expect(res.headers.get("clear-site-data")).toContain("cache");
    expect(guest.cookies.has(t.deps.cookies.session)).toBe(false);
    await runJobs();

    // The row is a tombstone: nothing personal is left on it.
    const g = await userOf(guestId);
    expect(g.deletedAt).toBe(clock);
    for (const field of ["email", "username", "passwordHash", "firstName", "lastName", "name", "photo", "bio", "about", "phone", "dateOfBirth", "city", "stripeCustomerId", "stripeAccountId", "busyCalendarUrl", "locale"] as const) expect(g[field]).toBeNull();
    expect(g.photos).toEqual([]);
    expect(await t.db.select().from(sessions).where(eq(sessions.userId, guestId))).toEqual([]);
    expect(await t.db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, guestId))).toEqual([]);

    // The goodbye, to the address it had.
    const [mail] = await outboxEmails(t.dataDir, guestEmail, "account-deleted");
    expect(mail?.subject).toBe("Your Offline account has been deleted");

    // The log: asked by the person, the files removed, nothing personal in it.
    const [logged] = await t.db.select().from(accountDeletions).where(eq(accountDeletions.requestedBy, "self"));
    expect(logged?.operatorId).toBeNull();
    expect(logged?.filesRemovedAt).not.toBeNull();

    // Every old link leads nowhere.
    expect((await stranger.get(`/profile/${guestUsername}`)).status).toBe(404);
    expect((await stranger.get(`${guestPhoto}/thumb.webp`)).status).toBe(404);
    expect((await stranger.get(`${guestPhoto}/large.webp`)).status).toBe(404);
    expect((await stranger.get(feed)).status).toBe(404);
    expect((await stranger.get(unsubscribe)).status).toBe(404);
    expect((await stranger.request(unsubscribe, { method: "POST" })).status).toBe(404);
    // The browser's old session is gone; signing in fails.
    expect((await guest.get("/api/user")).status).toBe(401);
    const signIn = await t.client().postJson("/api/login", { email: guestEmail, password: "secret123" });
    expect(signIn.status).toBe(401);

    // Drawn again, nothing kept shows the name.
    for (const path of [`/activity/${activityId}`, `/profile/${hostUsername}`]) {
      const html = await (await stranger.get(path)).text();
      expect(html).not.toContain("Gwendolyn");
      expect(html).toContain("Deleted user");
    }

    // The money stays as it was, and still adds up.
    expect(await ledgerLines(t.db, bookingId)).toEqual(ledgerBefore);
    expect(await moneyViolations(t.deps, [bookingId])).toEqual([]);
  });

  test("the host's conversation, list and reviews read \"Deleted user\", with no name, photo or profile link", async () => {
    const conversation = await (await host.get(`/bookings/${bookingId}`)).text();
    expect(conversation).toContain("Deleted user");
    expect(conversation).toContain("See you at the courts!");
    expect(conversation).not.toContain("Gwendolyn");
    expect(conversation).not.toContain(guestUsername);
    expect(conversation).not.toContain(guestPhoto);
    expect(conversation).not.toContain("data-profile-sheet");
    const list = await (await host.get("/bookings")).text();
    expect(list).toContain("Deleted user");
    expect(list).not.toContain("Gwendolyn");
    const hostUsername = (await userOf(hostId)).username!;
    const reviewsPage = await (await stranger.get(`/profile/${hostUsername}/reviews`)).text();
    expect(reviewsPage).toContain("A great partner at tennis.");
    expect(reviewsPage).toContain("Deleted user");
    expect(reviewsPage).not.toContain("Gwendolyn");
    // The host's own reviews: the one they wrote is about a deleted user now.
    const mine = await (await host.get("/reviews")).text();
    expect(mine).toContain("About Deleted user · Tennis");
    // The rows stay for the other side: the message and both reviews.
    expect((await t.db.select().from(messages).where(and(eq(messages.bookingId, bookingId), eq(messages.senderId, guestId)))).map((m) => m.content)).toContain("See you at the courts!");
    expect((await t.db.select().from(reviews).where(eq(reviews.bookingId, bookingId))).length).toBe(2);
    // The API names nobody.
    const api = await body(await host.get(`/api/bookings/${bookingId}`));
    expect(JSON.stringify(api)).not.toContain("Gwendolyn");
  });

  test("the French screens say \"Utilisateur supprimé\"", async () => {
    const html = await (await host.get(`/bookings/${bookingId}`, { cookie: `${[...host.cookies].map(([k, v]) => `${k}=${v}`).join("; ")}; lang=fr`, "accept-language": "fr" })).text();
    // The host's own language is the account's choice, else the browser's.
    expect(html.includes("Utilisateur supprimé") || html.includes("Deleted user")).toBe(true);
    await host.postJson("/api/locale", { locale: "fr", next: "/bookings" });
    expect(await (await host.get(`/bookings/${bookingId}`)).text()).toContain("Utilisateur supprimé");
    await host.postJson("/api/locale", { locale: "en", next: "/bookings" });
  });

  test("the email and the username are free for a new sign-up", async () => {
    const again = t.client();
    // The outbox still holds the old account's verification email: the new one is verified here.
    const { user } = await again.signUpComplete({ email: guestEmail, username: guestUsername, firstName: "Newcomer" }, { verified: false });
    await verifyEmailOf(t, user.id);
    expect(user.id).not.toBe(guestId);
    expect(user.username).toBe(guestUsername);
    // The old booking stays the deleted person's: the newcomer sees nothing of it.
    expect((await again.get(`/bookings/${bookingId}`)).status).toBe(404);
    const profile = await (await stranger.get(`/profile/${guestUsername}`)).text();
    expect(profile).toContain("Newcomer");
    expect(profile).not.toContain("Gwendolyn");
  });

  test("a second deletion of the same account finds nothing to delete", async () => {
    expect((await userOf(guestId)).deletedAt).not.toBeNull();
    // Its sessions are gone: the old cookie is a visitor's.
    expect((await guest.postJson("/api/account/delete", { password: "secret123" })).status).toBe(401);
  });
});

describe("each open state refuses", () => {
  /** A person with a password session, a host with an activity, the person's activity as host too. */
  async function people() {
    const person = t.client();
    const personId = (await person.signUpComplete()).user.id;
    const other = await insert(t.db).user(userRow());
    const otherActivity = await insert(t.db).activity((await import("../src/demo/factories")).activityRow(other));
    return { person, personId, other, otherActivity };
  }
  const openKinds = async (c: Client) => {
    const res = await c.postJson("/api/account/delete", { password: "secret123" });
    expect(res.status).toBe(409);
    return ((await body(res)).open as { kind: string }[]).map((o) => o.kind);
  };

  test("a payment hold: a booking awaiting its payment while its hold lasts", async () => {
    const { person, personId, otherActivity } = await people();
    const held = await insert(t.db).booking(bookingRow(otherActivity, { guestId: personId, startsAt: clock + 3 * DAY, status: "awaiting_payment", holdUntil: clock + 10 * 60 * 1000 }));
    expect(await openKinds(person)).toEqual(["paymentHold"]);
    // Past its hold with no payment started it holds nothing; with a payment started it waits for the reconciliation.
    await writeTransaction(t.db, (tx) => tx.update(bookings).set({ holdUntil: clock - 1, paymentIntentId: `tpi_${crypto.randomUUID()}` }).where(eq(bookings.id, held.id)));
    expect(await openKinds(person)).toEqual(["paymentHold"]);
    await writeTransaction(t.db, (tx) => tx.update(bookings).set({ paymentIntentId: null }).where(eq(bookings.id, held.id)));
    expect((await person.postJson("/api/account/delete", { password: "secret123" })).status).toBe(200);
  });

  test("a claim under way, a group session's spot, a host's debt", async () => {
    const { person, personId, other, otherActivity } = await people();
    const claim = { movement: "capture", key: "k", intentId: "tpi_x", from: "accepted", to: "accepted", canceledBy: null, message: null, senderId: null } as unknown as BookingClaim;
    await insert(t.db).booking(bookingRow(otherActivity, { guestId: personId, startsAt: clock - 30 * DAY, status: "completed", claim, claimedAt: clock }));
    expect(await openKinds(person)).toEqual(["claim"]);

    const second = await people();
    const group = await insert(t.db).activity(groupActivityRow(other));
    await insert(t.db).booking(bookingRow(group, { guestId: second.personId, startsAt: clock + 4 * DAY, status: "accepted", spots: 2 }));
    expect(await openKinds(second.person)).toEqual(["booking"]);

    // A host owing part of a refund made after their payout.
    const third = await people();
    const theirs = await insert(t.db).activity((await import("../src/demo/factories")).activityRow({ id: third.personId }));
    const owing = await insert(t.db).booking(bookingRow(theirs, { guestId: other.id, startsAt: clock - 20 * DAY, status: "completed" }));
    await insert(t.db).ledger([{ id: crypto.randomUUID(), bookingId: owing.id, kind: "owed", amountCents: 500, currency: "usd", provider: "test", providerRef: null, idempotencyKey: `owed:${owing.id}` }]);
    expect(await openKinds(third.person)).toEqual(["debt"]);
    // Nothing of any of them changed.
    for (const id of [person, second.person, third.person]) expect((await id.get("/api/user")).status).toBe(200);
  });
});

describe("a copy of one's data", () => {
  test("refuses while being prepared; a prepared copy's file goes with the account", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const preparing = crypto.randomUUID();
    await writeTransaction(t.db, (tx) => tx.insert(dataExports).values({ id: preparing, userId: user.id, status: "preparing", createdAt: clock }));
    const refused = await c.postJson("/api/account/delete", { password: "secret123" });
    expect(refused.status).toBe(409);
    expect((await body(refused)).open).toEqual([expect.objectContaining({ kind: "dataCopy", href: "/settings#data-export" })]);

    const ready = crypto.randomUUID();
    const key = `exports/${ready}.zip`;
    await t.deps.storage.write(key, new Uint8Array([80, 75, 3, 4]), "application/zip");
    await writeTransaction(t.db, async (tx) => {
      await tx.delete(dataExports).where(eq(dataExports.id, preparing));
      await tx.insert(dataExports).values({ id: ready, userId: user.id, status: "ready", fileKey: key, tokenHash: `hash-${ready}`, bytes: 4, expiresAt: clock + DAY, createdAt: clock });
    });
    expect(await t.deps.storage.size(key)).toBe(4);
    expect((await c.postJson("/api/account/delete", { password: "secret123" })).status).toBe(200);
    await runJobs();
    expect(await t.deps.storage.size(key)).toBeNull();
    expect(await t.db.select().from(dataExports).where(eq(dataExports.userId, user.id))).toEqual([]);
  });
});

describe("an account with only a provider's sign-in", () => {
  test("confirms with its email: a wrong one changes nothing, the right one deletes; the provider's sign-in then starts anew", async () => {
    const profile = { provider: "github", subject: `gh-${crypto.randomUUID()}`, email: `octo${Date.now()}@example.com`, emailVerified: true, firstName: "Octavia", lastName: "Cat" };
    const made = await findOrCreateOAuthUser(t.db, profile);
    await writeTransaction(t.db, (tx) => tx.update(users).set({ username: `octo${Date.now()}`, dateOfBirth: "1990-01-01", city: "New York", country: "United States", photos: ["/static/avatars/avatar-1.svg"], photo: "/static/avatars/avatar-1.svg" }).where(eq(users.id, made.id)));
    const c = t.client();
    await c.signInAs(made.id);
    const screen = await (await c.get("/settings/delete-account")).text();
    expect(screen).toContain('name="email"');
    expect(screen).not.toContain('name="password"');

    const wrong = await c.postJson("/api/account/delete", { email: "someone-else@example.com" });
    expect(wrong.status).toBe(403);
    expect((await body(wrong)).message).toBe("This is not your account's email. Nothing was deleted.");
    expect((await userOf(made.id)).email).toBe(profile.email);

    const right = await c.postJson("/api/account/delete", { email: profile.email.toUpperCase() });
    expect(right.status).toBe(200);
    expect(await t.db.select().from(oauthAccounts).where(eq(oauthAccounts.userId, made.id))).toEqual([]);
    // The provider's account no longer reaches the deleted one: it makes a new account.
    const outcome = await signInWithProvider(t.db, profile);
    expect(outcome.kind).toBe("user");
    expect(outcome.user.id).not.toBe(made.id);
    expect(outcome.user.email).toBe(profile.email);
  });
});

describe("crashes", () => {
  /**
   * Makes the next insert into a table fail, as a full disk or a crash would: a trigger, in each
   * engine's SQL (as tests/transactions.test.ts does). Answers what takes it away again.
   */
  async function failNextInsert(table: string): Promise<() => Promise<void>> {
    if (engineOf(t.db) === "sqlite") {
      writerClient(t.db).exec(`CREATE TRIGGER fail_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`);
      return async () => void writerClient(t.db).exec(`DROP TRIGGER fail_${table}`);
    }
    const pg = t.db.$client as unknown as SQL;
    await pg.unsafe(`CREATE FUNCTION fail_${table}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated failure'; END $$`);
    await pg.unsafe(`CREATE TRIGGER fail_${table} BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION fail_${table}()`);
    return async () => {
      await pg.unsafe(`DROP TRIGGER fail_${table} ON ${table}`);
      await pg.unsafe(`DROP FUNCTION fail_${table}()`);
    };
  }

  test("a failure at the last row leaves the whole account: nothing is half deleted", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    expect((await c.postJson("/api/activities", TENNIS)).status).toBe(201);
    const before = await snapshot(user.id);
    const restore = await failNextInsert("account_deletions");
    try {
      expect((await c.postJson("/api/account/delete", { password: "secret123" })).status).toBe(500);
    } finally {
      await restore();
    }
    expect(await snapshot(user.id)).toEqual(before);
    const [activity] = await t.db.select().from(activities).where(eq(activities.hostId, user.id));
    expect(activity?.archivedAt).toBeNull();
    expect((await c.get(`/activity/${activity!.id}`)).status).toBe(200);
    // Then it goes through.
    expect((await c.postJson("/api/account/delete", { password: "secret123" })).status).toBe(200);
    const visitor = t.client();
    await visitor.signUpComplete();
    expect((await visitor.get(`/activity/${activity!.id}`)).status).toBe(404);
  });

  test("a crash between the rows and the files: the job finishes removing them", async () => {
    const c = t.client();
    const { user } = await c.signUpComplete();
    const photo = (await userOf(user.id)).photo!;
    const file = join(t.dataDir, "uploads", `${photo.replace("/objects/", "photos/")}/thumb.webp`);
    const stored = async () => (await t.client().get(`${photo}/thumb.webp`)).status;
    expect(await stored()).toBe(200);
    // The storage fails as if the process died before it reached the files.
    const remove = t.deps.storage.delete;
    t.deps.storage.delete = () => Promise.reject(new Error("crashed before the files (expected by the test)"));
    let id: string;
    try {
      const res = await c.postJson("/api/account/delete", { password: "secret123" });
      expect(res.status).toBe(200);
      id = (await body(res)).id;
      // The job's first attempt, started at once after the commit, meets the failing storage.
      await until("the file job's first attempt", async () => ((await one(t.db.select().from(jobs).where(eq(jobs.key, `account.files:${id}`))))?.attempts ?? 0) >= 1);
      await settled(t.deps);
    } finally {
      t.deps.storage.delete = remove;
    }
    // The rows are gone, the files not yet; the job waits for its next attempt.
    expect((await userOf(user.id)).deletedAt).not.toBeNull();
    expect(await stored()).toBe(200);
    const job = await one(t.db.select().from(jobs).where(eq(jobs.key, `account.files:${id}`)));
    expect(job?.attempts).toBe(1);
    expect((await one(t.db.select().from(accountDeletions).where(eq(accountDeletions.id, id))))?.filesRemovedAt).toBeNull();
    // Later, the runner tries again and finishes.
    clock += HOUR;
    await runJobs();
    expect(await stored()).toBe(404);
    expect(existsSync(file)).toBe(false);
    expect(await one(t.db.select().from(jobs).where(eq(jobs.key, `account.files:${id}`)))).toBeUndefined();
    expect((await one(t.db.select().from(accountDeletions).where(eq(accountDeletions.id, id))))?.filesRemovedAt).toBe(clock);
  });
});

describe("operators", () => {
  let operator: Client;
  beforeAll(async () => {
    operator = t.client();
    await operator.signUpComplete({ email: OPERATOR });
  });

  test("anyone else gets a 404", async () => {
    const someone = t.client();
    await someone.signUpComplete();
    expect((await someone.get("/admin/deletions")).status).toBe(404);
    expect((await someone.postForm("/admin/deletions", { email: OPERATOR })).status).toBe(404);
    expect((await t.client().get("/admin/deletions")).status).toBe(404);
  });

  test("delete an account asked by email, with the same refusals, and see it in the log without personal data", async () => {
    const host = t.client();
    const { user, email } = await host.signUpComplete({ firstName: "Philippa", locale: undefined });
    await writeTransaction(t.db, (tx) => tx.update(users).set({ locale: "fr" }).where(eq(users.id, user.id)));
    const created = await body(await host.postJson("/api/activities", { ...TENNIS, title: "Pétanque" }));

    const lookup = await operator.get(`/admin/deletions?email=${encodeURIComponent(email.toUpperCase())}`);
    expect(lookup.status).toBe(200);
    expect(await lookup.text()).toContain(`Account found: ${email}`);
    expect((await operator.get("/admin/deletions?email=nobody%40example.com")).status).toBe(404);

    // Open: a pending request from a guest.
    const guest = t.client();
    await guest.signUpComplete();
    const pendingId = await requestBooking(guest, created.id, 5);
    const refused = await operator.postForm("/admin/deletions", { email });
    expect(refused.status).toBe(409);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain("Your account cannot be deleted yet");
    expect(refusedHtml).toContain(`href="/bookings/${pendingId}"`);
    expect((await userOf(user.id)).deletedAt).toBeNull();

    expect((await host.postJson(`/api/bookings/${pendingId}/reject`, {})).status).toBe(200);
    const done = await operator.postForm("/admin/deletions", { email });
    expect(done.status).toBe(303);
    await runJobs();
    expect((await userOf(user.id)).email).toBeNull();
    // The person was signed out, their activity is no longer available, the goodbye went in their language.
    expect((await host.get("/api/user")).status).toBe(401);
    expect((await guest.get(`/activity/${created.id}`)).status).toBe(404);
    expect(await (await guest.get("/browse")).text()).not.toContain("Pétanque");
    const [mail] = await outboxEmails(t.dataDir, email, "account-deleted");
    expect(mail?.subject).toBe("Votre compte Offline a été supprimé");
    // The guest's conversation: the host is a deleted user now.
    const conversation = await (await guest.get(`/bookings/${pendingId}`)).text();
    expect(conversation).toContain("Deleted user");
    expect(conversation).not.toContain("Philippa");
    expect(await moneyViolations(t.deps, [pendingId])).toEqual([]);

    const log = await operator.get("/admin/deletions");
    const html = await log.text();
    expect(html).toContain("An operator");
    expect(html).toContain("The person");
    expect(html).not.toContain(email);
    expect(html).not.toContain("Philippa");
    const operatorId = (await one(t.db.select({ id: users.id }).from(users).where(eq(users.email, OPERATOR))))!.id;
    const rows = await t.db.select().from(accountDeletions).where(eq(accountDeletions.requestedBy, "operator"));
    expect(rows.map((r) => r.operatorId)).toEqual([operatorId]);
    const api = await body(await operator.get("/api/admin/deletions"));
    expect(Object.keys(api.deletions[0]).sort()).toEqual(["createdAt", "filesRemovedAt", "id", "operatorId", "requestedBy"]);
  });
});

describe("the screen", () => {
  test("says what happens, in English and in French, and is reached from Settings", async () => {
    const c = t.client();
    await c.signUpComplete();
    const settings = await (await c.get("/settings")).text();
    expect(settings).toContain('href="/settings/delete-account"');
    const en = await (await c.get("/settings/delete-account")).text();
    expect(en).toContain("Deleting your account cannot be undone.");
    expect(en).toContain('name="password"');
    await c.postJson("/api/locale", { locale: "fr", next: "/settings" });
    const fr = await (await c.get("/settings/delete-account")).text();
    expect(fr).toContain("La suppression de votre compte est définitive.");
    expect(fr).toContain("Supprimer mon compte");
    const wrong = await c.postForm("/settings/delete-account", { password: "nope-nope" });
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain("Ce mot de passe n’est pas le bon. Rien n’a été supprimé.");
  });
});
