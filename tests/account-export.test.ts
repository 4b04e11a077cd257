/**
 * A copy of a person's data (docs/decisions/0056): "Download my data" on Settings and
 * `GET /api/account/export`. A person with history on both sides of bookings gets every kind of
 * row that is theirs, and nothing of anyone else's beyond the other participant's first name; a
 * large account's copy is prepared by a job and fetched once, within a day, through an emailed link.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { unzipSync, strFromU8 } from "fflate";
import { one, writeTransaction } from "../db/client";
import { bookingRefunds, dataExports, jobs, ledgerEntries, messages, notificationPreferences, pushSubscriptions, savedActivities, users } from "../db/schema";
import { activityRow, bookingRow, completedLedgerRows, insert, reviewRow, userRow } from "../src/demo/factories";
import { composeEmail, queueEmail } from "../src/email/outbox";
import { Client, makeTestApp, outboxEmails, pathOfLink, until, waitForOutboxEmail } from "./helpers";

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

type TestApp = Awaited<ReturnType<typeof makeTestApp>>;
type Data = Record<string, any>;

/** The people the person dealt with: what of them must never be in the copy beyond their first names. */
const HOST = { firstName: "Hortense", lastName: "Vandermolen", email: "hortense.private@example.org", phone: "+33 6 12 34 56 78", bio: "Hortense's own bio" };
const GUEST = { firstName: "Gaspard", lastName: "Okonkwo-Lind", email: "gaspard.private@example.org", phone: "+44 7700 900123", bio: "Gaspard's own bio" };
/** A review about the person not published yet (double-blind): they have not seen it. */
const HIDDEN_REVIEW = "A hidden review the person has not read";

/** The file of an answer, read: `data.json` and every other entry of a zip, or the JSON alone. */
async function readCopy(res: Response) {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("application/zip")) {
    const entries = unzipSync(bytes);
    return { bytes, entries, data: JSON.parse(strFromU8(entries["data.json"]!)) as Data, type };
  }
  return { bytes, entries: { "data.json": bytes } as Record<string, Uint8Array>, data: JSON.parse(strFromU8(bytes)) as Data, type };
}

/** Every byte of the file, its zip entries unpacked: what "appears nowhere in the file" is checked against. */
const allText = (copy: Awaited<ReturnType<typeof readCopy>>) => [strFromU8(copy.bytes, true), ...Object.entries(copy.entries).map(([name, b]) => `${name}\n${strFromU8(b, true)}`)].join("\n");

/**
 * A person with history: a host of one activity (with a photo) and a guest of another's, each
 * booking completed with its money lines, one refunded in part; messages both ways; reviews both
 * ways (one about them still hidden); a saved activity, preferences, a push subscription, an
 * outside calendar, sessions and the emails sent to them.
 */
async function personWithHistory(t: TestApp, now: number) {
  const person = t.client();
  const account = await person.signUpComplete({ firstName: "Pat", lastName: "Example" });
  const personId = account.user.id;
  const activityPhoto = await person.uploadPhoto(undefined, "/api/activity-images");
  const rows = insert(t.db);
  const host = await rows.user(userRow(HOST));
  const guest = await rows.user(userRow(GUEST));
  const theirActivity = await rows.activity(activityRow(host, { title: "Hortense's tennis" }));
  const ownActivity = await rows.activity(activityRow({ id: personId }, { title: "Pat's cooking class", photos: [activityPhoto] }));
  // As guest, of Hortense's activity: completed, $10 given back.
  const asGuest = await rows.booking(bookingRow(theirActivity, { guestId: personId, startsAt: now - 5 * DAY, status: "completed" }));
  await rows.ledger(completedLedgerRows({ ...asGuest, paymentIntentId: "tpi_guestside" }, { paidOut: true }));
  await writeTransaction(t.db, async (tx) => {
    await tx.insert(bookingRefunds).values({ id: crypto.randomUUID(), bookingId: asGuest.id, amountCents: 1000, currency: "usd", reason: "Rain stopped play", byUserId: host.id, key: `refund:${asGuest.id}`, createdAt: now - 4 * DAY });
    await tx.insert(ledgerEntries).values({ id: crypto.randomUUID(), bookingId: asGuest.id, kind: "refund", amountCents: 1000, currency: "usd", provider: "test", idempotencyKey: `ledger:refund:${asGuest.id}`, createdAt: now - 4 * DAY });
  });
  // As host, of Gaspard's booking of the person's class: completed and paid out.
  const asHost = await rows.booking(bookingRow(ownActivity, { guestId: guest.id, startsAt: now - 3 * DAY, status: "completed", message: "Gaspard asks to join" }));
  await rows.ledger(completedLedgerRows(asHost, { paidOut: true }));
  await writeTransaction(t.db, async (tx) => {
    const message = (bookingId: string, seq: number, senderId: string | null, content: string) => ({
      id: crypto.randomUUID(),
      bookingId,
      seq,
      senderId,
      content,
      isSystemMessage: senderId === null,
      systemMessageType: senderId === null ? "booking_accepted" : null,
      createdAt: now - 6 * DAY + seq,
    });
    await tx.insert(messages).values([
      message(asGuest.id, 1, personId, "Pat asks Hortense about rackets"),
      message(asGuest.id, 2, host.id, "Hortense answers about rackets"),
      message(asGuest.id, 3, null, "Booking accepted"),
      message(asHost.id, 1, guest.id, "Gaspard asks about aprons"),
      message(asHost.id, 2, personId, "Pat answers about aprons"),
    ]);
    await tx.insert(savedActivities).values({ userId: personId, activityId: theirActivity.id, title: "Hortense's tennis", createdAt: now - DAY });
    await tx.insert(notificationPreferences).values({ userId: personId, marketingEmails: true, reminders: false });
    await tx.insert(pushSubscriptions).values({ id: crypto.randomUUID(), userId: personId, endpoint: "https://push.example.net/send/pat-device", p256dhKey: "P256DH-SECRET-KEY", authKey: "AUTH-SECRET-KEY" });
    await tx.update(users).set({ busyCalendarUrl: "https://calendar.example.net/pat.ics", phone: "+1 212 555 0199" }).where(eq(users.id, personId));
  });
  await rows.review(reviewRow({ bookingId: asGuest.id, reviewerId: personId, reviewedUserId: host.id, activityId: theirActivity.id, stars: 5, text: "Pat on Hortense: great coach", createdAt: now - 2 * DAY }));
  await rows.review(reviewRow({ bookingId: asGuest.id, reviewerId: host.id, reviewedUserId: personId, stars: 4, text: "Hortense on Pat: punctual guest", createdAt: now - 2 * DAY }));
  await rows.review(reviewRow({ bookingId: asHost.id, reviewerId: personId, reviewedUserId: guest.id, stars: 5, text: "Pat on Gaspard: lovely guest", createdAt: now - DAY }));
  await rows.review(reviewRow({ bookingId: asHost.id, reviewerId: guest.id, reviewedUserId: personId, stars: 3, text: HIDDEN_REVIEW, createdAt: now - DAY, publishedAt: null }));
  // A second device's session.
  const phone = t.client();
  await phone.signInAs(personId);
  // An email to Hortense, sent (in the outbox), and one to the person still waiting to be sent.
  const email = (to: string, subject: string) => composeEmail(t.deps, "test-note", to, { locale: "en", subject, heading: subject, paragraphs: [subject], footer: "Footer" });
  await writeTransaction(t.db, async (tx) => {
    await queueEmail(tx, t.deps, `note-host-${host.id}`, email(HOST.email, "A note for Hortense only"), now);
    await queueEmail(tx, t.deps, `note-person-${personId}`, email(account.email, "A note for Pat, waiting"), now + 30 * DAY);
  });
  await t.deps.jobs.runDue();
  await waitForOutboxEmail(t.dataDir, HOST.email, "test-note");
  return { person, personId, email: account.email, host, guest, asGuest, asHost, ownActivity, theirActivity };
}

describe("a copy of a person's data", () => {
  let t: TestApp;
  let clock = Date.UTC(2026, 10, 20, 12, 0);
  let world: Awaited<ReturnType<typeof personWithHistory>>;

  beforeAll(async () => {
    t = await makeTestApp({ now: () => clock });
    world = await personWithHistory(t, clock);
  });
  afterAll(() => t.cleanup());

  test("holds every kind of row that is theirs, and nothing of anyone else's beyond a first name", async () => {
    const res = await world.person.get("/api/account/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="offline-data-user[a-z0-9]+-2026-11-20\.zip"$/);
    expect(res.headers.get("cache-control")).toContain("no-store");
    const copy = await readCopy(res);
    const d = copy.data;

    expect(d.format).toBe("offline-data-export/1");
    // The profile, all of it but the secrets.
    expect(d.profile).toMatchObject({ id: world.personId, email: world.email, firstName: "Pat", lastName: "Example", phone: "+1 212 555 0199", dateOfBirth: "1990-05-15", hasPassword: true });
    expect(d.profile.passwordHash).toBeUndefined();
    // The photos: the profile's and the activity's, in the zip.
    expect(d.photos).toHaveLength(2);
    for (const name of d.photos) expect(copy.entries[name]!.length).toBeGreaterThan(100);
    expect(d.photos.some((n: string) => n.startsWith(`photos/activities/${world.ownActivity.id}/`))).toBe(true);
    expect(d.photos.some((n: string) => n.startsWith("photos/profile/"))).toBe(true);
    // Their activities.
    expect(d.activities.map((a: Data) => a.title)).toEqual(["Pat's cooking class"]);
    // Bookings on both sides, with their money lines and refunds.
    expect(d.bookings.asGuest).toHaveLength(1);
    expect(d.bookings.asHost).toHaveLength(1);
    const g = d.bookings.asGuest[0];
    expect(g).toMatchObject({ id: world.asGuest.id, role: "guest", activityTitle: "Hortense's tennis", host: { firstName: "Hortense" }, totalCents: world.asGuest.totalCents, currency: "usd" });
    expect(g.moneyLines.map((l: Data) => l.kind).sort()).toEqual(["authorize", "capture", "refund"]);
    expect(g.refunds).toEqual([{ amountCents: 1000, currency: "usd", reason: "Rain stopped play", byHost: true, at: expect.any(String) }]);
    // The host's share and the platform's fee are not the guest's lines.
    expect(g.hostEarningsCents).toBeUndefined();
    const h = d.bookings.asHost[0];
    expect(h).toMatchObject({ id: world.asHost.id, role: "host", guest: { firstName: "Gaspard" }, hostEarningsCents: world.asHost.hostEarningsCents, message: "Gaspard asks to join" });
    expect(h.moneyLines.map((l: Data) => l.kind).sort()).toEqual(["authorize", "capture", "payout_pending", "platform_fee", "transfer"]);
    // Messages sent and received, in both conversations.
    const said = d.conversations.flatMap((c: Data) => c.messages.map((m: Data) => `${m.direction}:${m.from}:${m.content}`));
    expect(said).toEqual([
      "sent:you:Pat asks Hortense about rackets",
      "received:Hortense:Hortense answers about rackets",
      "system:system:Booking accepted",
      "received:Gaspard:Gaspard asks about aprons",
      "sent:you:Pat answers about aprons",
    ]);
    expect(d.conversations.map((c: Data) => c.with.firstName).sort()).toEqual(["Gaspard", "Hortense"]);
    // Reviews written and received; the one about them still hidden is not theirs to read yet.
    expect(d.reviews.written.map((r: Data) => r.text).sort()).toEqual(["Pat on Gaspard: lovely guest", "Pat on Hortense: great coach"]);
    expect(d.reviews.received.map((r: Data) => `${r.by.firstName}:${r.text}`)).toEqual(["Hortense:Hortense on Pat: punctual guest"]);
    // Settings and devices.
    expect(d.notificationPreferences).toMatchObject({ marketingEmails: true, reminders: false, messages: true });
    expect(d.sessions.length).toBeGreaterThanOrEqual(2);
    for (const s of d.sessions) expect(Object.keys(s).sort()).toEqual(["createdAt", "expiresAt"]);
    expect(d.savedActivities).toEqual([{ activityId: world.theirActivity.id, title: "Hortense's tennis", savedAt: expect.any(String) }]);
    expect(d.outsideCalendar.url).toBe("https://calendar.example.net/pat.ics");
    expect(d.pushSubscriptions).toEqual([expect.objectContaining({ endpoint: "https://push.example.net/send/pat-device" })]);
    // The emails sent to them: the address verification, kept in the outbox, as a file too.
    const verify = d.emails.find((e: Data) => e.file?.includes("-verify-"));
    expect(verify).toMatchObject({ status: "sent", subject: expect.any(String) });
    expect(strFromU8(copy.entries[verify.file]!)).toContain(world.email);
    expect(d.emails.filter((e: Data) => e.status === "waiting").map((e: Data) => e.subject)).toEqual(["A note for Pat, waiting"]);
    expect(d.emails.some((e: Data) => e.subject === "A note for Hortense only")).toBe(false);
    expect(Object.keys(copy.entries).filter((n) => n.startsWith("emails/")).length).toBe(d.emails.filter((e: Data) => e.file).length);

    const text = allText(copy);
    // Nothing of the others beyond their first names, nothing secret, nothing not yet seen.
    for (const other of [HOST, GUEST]) {
      for (const value of [other.email, other.lastName, other.phone, other.bio]) expect(text).not.toContain(value);
    }
    for (const id of [world.host.id, world.guest.id]) expect(text).not.toContain(id);
    for (const secret of ["P256DH-SECRET-KEY", "AUTH-SECRET-KEY", HIDDEN_REVIEW, "tpi_guestside", "A note for Hortense only"]) expect(text).not.toContain(secret);
    const person = await one(t.db.select().from(users).where(eq(users.id, world.personId)));
    expect(text).not.toContain(person!.passwordHash!);
    const sids = (await t.db.select().from((await import("../db/schema")).sessions)).map((s) => s.sid);
    for (const sid of sids) expect(text).not.toContain(sid);
  });

  test("the Settings button and the API answer the same copy", async () => {
    const settings = await world.person.get("/settings");
    const html = await settings.text();
    expect(html).toContain('action="/settings/data-export"');
    expect(html).toContain("Download my data");
    const fromScreen = await world.person.postForm("/settings/data-export", {});
    expect(fromScreen.status).toBe(200);
    expect(fromScreen.headers.get("content-disposition")).toStartWith("attachment;");
    const fromApi = await world.person.get("/api/account/export");
    expect(fromApi.headers.get("content-type")).toBe(fromScreen.headers.get("content-type"));
    expect(fromApi.headers.get("content-disposition")).toBe(fromScreen.headers.get("content-disposition"));
    const [a, b] = [await readCopy(fromScreen), await readCopy(fromApi)];
    expect(a.data).toEqual(b.data);
    expect(Object.keys(a.entries).sort()).toEqual(Object.keys(b.entries).sort());
  });

  test("in French, the card says it in French", async () => {
    const french = await insert(t.db).user(userRow({ locale: "fr" }));
    const c = t.client();
    await c.signInAs(french.id);
    const page = await (await c.get("/settings")).text();
    expect(page).toContain("Télécharger mes données");
    expect(page).toContain("Vos données");
  });

  test("a person without photos or kept emails, profile unfinished, gets data.json alone", async () => {
    const rows = insert(t.db);
    const bare = await rows.user(userRow({ firstName: "Noa", photos: [], photo: null, profileImageUrl: null }));
    const c = t.client();
    await c.signInAs(bare.id);
    const res = await c.get("/api/account/export");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.headers.get("content-disposition")).toMatch(/\.json"$/);
    const copy = await readCopy(res);
    expect(copy.data.profile.firstName).toBe("Noa");
    expect(copy.data.photos).toEqual([]);
  });

  test("signed out: 401, and nothing is made", async () => {
    const visitor = new Client(t.app, t.deps);
    expect((await visitor.get("/api/account/export")).status).toBe(401);
    expect((await visitor.request("/settings/data-export", { method: "POST", form: {} })).status).toBe(401);
  });

  test("asking too often is refused with the wait", async () => {
    const rows = insert(t.db);
    const someone = await rows.user(userRow());
    const c = t.client();
    await c.signInAs(someone.id);
    for (let i = 0; i < 10; i++) expect((await c.get("/api/account/export")).status).toBe(200);
    const refused = await c.get("/api/account/export");
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toContain("minutes");
    // From Settings, the refusal comes back to Settings as a message.
    const fromScreen = await c.postForm("/settings/data-export", {});
    expect(fromScreen.status).toBe(303);
    expect(fromScreen.headers.get("location")).toBe("/settings");
    const settings = await (await c.get("/settings")).text();
    expect(settings).toContain("You have asked for your data many times in a short while.");
  });
});

describe("a large account's copy", () => {
  let t: TestApp;
  let clock = Date.UTC(2026, 10, 20, 12, 0);
  let world: Awaited<ReturnType<typeof personWithHistory>>;

  beforeAll(async () => {
    // Past 5 rows, a copy is prepared by the job.
    t = await makeTestApp({ now: () => clock, env: { EXPORT_AT_ONCE_MAX_ROWS: "5" } });
    world = await personWithHistory(t, clock);
    await writeTransaction(t.db, (tx) => tx.update(users).set({ locale: "fr" }).where(eq(users.id, world.personId)));
  });
  afterAll(() => t.cleanup());

  const exportsOf = (userId: string) => t.db.select().from(dataExports).where(eq(dataExports.userId, userId));

  test("is prepared by a job, emailed as a link in their language, and the link works once", async () => {
    const asked = await world.person.get("/api/account/export");
    expect(asked.status).toBe(202);
    expect(await asked.json()).toEqual({ status: "preparing", message: "Nous préparons votre copie et vous enverrons un lien par e-mail." });
    await t.deps.jobs.runDue();
    const mail = await waitForOutboxEmail(t.dataDir, world.email, "data-export");
    expect(mail.subject).toBe("La copie de vos données Offline est prête");
    const link = mail.links.find((l) => l.includes("/account/export/"))!;
    expect(link).toBeDefined();
    const [row] = await exportsOf(world.personId);
    expect(row).toMatchObject({ status: "ready", expiresAt: clock + DAY });
    // The token itself is not kept: its SHA-256 is.
    const token = link.split("/").pop()!;
    expect(row!.tokenHash).not.toBe(token);
    expect(row!.tokenHash).toBe(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
    expect(await t.deps.storage.size(row!.fileKey!)).toBe(row!.bytes);

    // Settings says the link was emailed.
    expect(await (await world.person.get("/settings")).text()).toContain('data-export-status="ready"');
    // The link's page, then the file.
    const page = await world.person.get(pathOfLink(link));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`action="${pathOfLink(link)}"`);
    // Another person's session cannot use it.
    const other = t.client();
    await other.signInAs(world.host.id);
    expect((await other.postForm(pathOfLink(link), {})).status).toBe(410);
    const got = await world.person.postForm(pathOfLink(link), {});
    expect(got.status).toBe(200);
    expect(got.headers.get("content-disposition")).toMatch(/^attachment; filename="offline-data-.+\.zip"$/);
    const copy = await readCopy(got);
    expect(copy.data.profile.id).toBe(world.personId);
    expect(copy.data.bookings.asHost).toHaveLength(1);
    const text = allText(copy);
    for (const value of [HOST.email, HOST.lastName, HOST.phone, GUEST.email, GUEST.lastName, GUEST.phone]) expect(text).not.toContain(value);

    // Used once: it works no more.
    expect((await world.person.postForm(pathOfLink(link), {})).status).toBe(410);
    expect((await world.person.get(pathOfLink(link))).status).toBe(410);
    // The file is removed by the job, an hour on.
    const used = (await exportsOf(world.personId))[0]!;
    expect(used).toMatchObject({ status: "downloaded", usedAt: clock });
    clock += HOUR + 1;
    await t.deps.jobs.runDue();
    expect(await t.deps.storage.size(used.fileKey!)).toBeNull();
    expect((await exportsOf(world.personId))[0]!.fileKey).toBeNull();
  });

  test("one copy is prepared at a time: asking again joins it", async () => {
    const id = crypto.randomUUID();
    await writeTransaction(t.db, (tx) => tx.insert(dataExports).values({ id, userId: world.personId, status: "preparing", createdAt: clock }));
    const fromScreen = await world.person.postForm("/settings/data-export", {});
    expect(fromScreen.status).toBe(303);
    expect(fromScreen.headers.get("location")).toBe("/settings#data-export");
    const fromApi = await world.person.get("/api/account/export");
    expect(fromApi.status).toBe(202);
    expect((await exportsOf(world.personId)).filter((e) => e.status === "preparing").map((e) => e.id)).toEqual([id]);
    const settings = await (await world.person.get("/settings")).text();
    expect(settings).toContain("Nous préparons votre copie et vous enverrons un lien par e-mail.");
    // Given up on (its job never finished), it stops holding the next one back.
    await writeTransaction(t.db, (tx) => tx.update(dataExports).set({ status: "expired" }).where(eq(dataExports.id, id)));
  });

  test("a preparation cut short after writing its file is finished by the job's next attempt", async () => {
    const before = (await outboxEmails(t.dataDir, world.email, "data-export")).length;
    const storage = t.deps.storage;
    const write = storage.write;
    // The file is written, then the process "dies" before the row says so.
    storage.write = async (key, data, type) => {
      await write.call(storage, key, data, type);
      storage.write = write;
      throw new Error("the process stopped here");
    };
    try {
      const asked = await world.person.get("/api/account/export");
      expect(asked.status).toBe(202);
      await t.deps.jobs.runDue();
      const [row] = await t.db.select().from(dataExports).where(and(eq(dataExports.userId, world.personId), eq(dataExports.status, "preparing")));
      expect(row).toBeDefined();
      // The attempt started at once beside the answer has failed and let go of its job.
      const job = () => one(t.db.select().from(jobs).where(eq(jobs.key, `dataExport.prepare:${row!.id}`)));
      await until("the first attempt to fail", async () => Boolean((await job())?.lastError) && !(await job())?.leaseUntil);
      // Settings still says it is being prepared.
      expect(await (await world.person.get("/settings")).text()).toContain('data-export-status="preparing"');
      clock += 60_000;
      await t.deps.jobs.runDue();
      const mail = await waitForOutboxEmail(t.dataDir, world.email, "data-export", before + 1);
      expect(mail.links.some((l) => l.includes("/account/export/"))).toBe(true);
      expect(await one(t.db.select().from(dataExports).where(eq(dataExports.id, row!.id)))).toMatchObject({ status: "ready" });
      expect((await outboxEmails(t.dataDir, world.email, "data-export")).length).toBe(before + 1);
      // Used, so the next test starts with none ready.
      const link = pathOfLink(mail.links.find((l) => l.includes("/account/export/"))!);
      expect((await world.person.postForm(link, {})).status).toBe(200);
    } finally {
      storage.write = write;
    }
  });

  test("a link not followed within a day stops working, and its file is removed", async () => {
    const before = (await outboxEmails(t.dataDir, world.email, "data-export")).length;
    expect((await world.person.get("/api/account/export")).status).toBe(202);
    await t.deps.jobs.runDue();
    const mail = await waitForOutboxEmail(t.dataDir, world.email, "data-export", before + 1);
    const link = pathOfLink(mail.links.find((l) => l.includes("/account/export/"))!);
    const row = (await t.db.select().from(dataExports).where(and(eq(dataExports.userId, world.personId), eq(dataExports.status, "ready"))))[0]!;
    clock += DAY;
    expect((await world.person.postForm(link, {})).status).toBe(410);
    await t.deps.jobs.runDue();
    const after = await one(t.db.select().from(dataExports).where(eq(dataExports.id, row.id)));
    expect(after).toMatchObject({ status: "expired", fileKey: null });
    expect(await t.deps.storage.size(row.fileKey!)).toBeNull();
    expect((await world.person.get(link)).status).toBe(410);
  });
});
