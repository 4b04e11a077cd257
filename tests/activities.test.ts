import { one, writeTransaction } from "../db/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, bookings } from "../db/schema";
import { seedDemo } from "../src/demo/seed";
import { activityRow, bookingRow, completedLedgerRows, insert, userRow } from "../src/demo/factories";
import { categories, categoryLabelKey } from "../src/activities/categories";
import { translator } from "../src/texts";
import { readBrowseQuery } from "../src/activities/input";
import { makeLimits } from "../src/deps";
import { priceFor } from "../shared/pricing";
import { makeTestApp, type Client } from "./helpers";
import { islandProps } from "./html";
import { scenarios, shown, type Scenario } from "./scenario";

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let stranger: Client;
beforeAll(async () => {
  t = await makeTestApp();
  host = t.client();
  await host.signUpComplete({ username: "thehost", city: "Paris", country: "France" });
  stranger = t.client();
  await stranger.signUpComplete({ username: "stranger" });
});
afterAll(() => t.cleanup());

type Json = Record<string, unknown> & { fields?: Record<string, string>; message?: string };
const body = async (res: Response) => (await res.json()) as Json;
const valid = { title: "Tennis for beginners", description: "Forehand, backhand, serve.", category: "sports", hourlyRate: "45.50" };

describe("creating activities through the API", () => {
  test("a valid activity is created in the host's city, with the spec's fields", async () => {
    const photo = await host.uploadPhoto(undefined, "/api/activity-images");
    const res = await host.request("/api/activities", { method: "POST", json: { ...valid, photos: [photo] } });
    expect(res.status).toBe(201);
    const a = await body(res);
    expect(a).toMatchObject({ title: "Tennis for beginners", category: "sports", hourlyRate: "45.50", duration: "1.00", maxDuration: null, city: "Paris", country: "France", hasMeetingPoint: false, meetingPoint: null, photos: [photo] });
  });

  const refusals: [Record<string, unknown>, string, string][] = [
    [{ title: "" }, "title", "Title is required"],
    [{ title: "x".repeat(51) }, "title", "Title is 50 characters at most"],
    [{ description: "   " }, "description", "Description is required"],
    [{ description: "x".repeat(201) }, "description", "Description is 200 characters at most"],
    [{ category: "cooking" }, "category", "Choose a category"],
    [{ hourlyRate: "" }, "hourlyRate", "Hourly rate is required"],
    [{ hourlyRate: "abc" }, "hourlyRate", "Enter the hourly rate as a number, with at most 2 decimals"],
    [{ hourlyRate: "10.999" }, "hourlyRate", "Enter the hourly rate as a number, with at most 2 decimals"],
    [{ hourlyRate: "0" }, "hourlyRate", "The hourly rate must be greater than 0"],
    [{ hourlyRate: "-5" }, "hourlyRate", "Enter the hourly rate as a number, with at most 2 decimals"],
    [{ hourlyRate: "10000.01" }, "hourlyRate", "The hourly rate is 10,000 at most (¥1,000,000 in yen)"],
    [{ duration: "0" }, "duration", "Durations go from 30 minutes to 4 hours in 30-minute steps"],
    [{ duration: "0.75" }, "duration", "Durations go from 30 minutes to 4 hours in 30-minute steps"],
    [{ duration: "4.5" }, "duration", "Durations go from 30 minutes to 4 hours in 30-minute steps"],
    [{ duration: "2", maxDuration: "2" }, "maxDuration", "The maximum duration is at least 30 minutes more than the minimum, and 4 hours at most"],
    [{ duration: "1", maxDuration: "5" }, "maxDuration", "The maximum duration is at least 30 minutes more than the minimum, and 4 hours at most"],
    [{ hasMeetingPoint: true, meetingPoint: "" }, "meetingPoint", "Enter the meeting point, or choose to share it later"],
    [{ hasMeetingPoint: true, meetingPoint: "x".repeat(201) }, "meetingPoint", "The meeting point is 200 characters at most"],
    [{ photos: ["a", "b", "c", "d", "e", "f", "g"] }, "photos", "6 photos at most"],
    [{ photos: ["/objects/00000000-0000-4000-8000-000000000000"] }, "photos", "These photos could not be saved"],
    [{ city: "Atlantis" }, "city", "Set your country and city in Settings first"],
  ];
  scenarios(
    () => t,
    refusals.map(([change, field, message]): Scenario => ({
      name: `${shown(change)} is refused with 400 and its message, and nothing is written`,
      as: () => host,
      method: "POST",
      url: "/api/activities",
      body: { ...valid, ...change },
      status: 400,
      json: { fields: { [field]: message } },
      unchanged: async () => (await t.db.select().from(activities)).length,
    })),
  );

  test("the rate message is the spec's French one for French visitors", async () => {
    const res = await host.request("/api/activities", { method: "POST", json: { ...valid, hourlyRate: "" }, headers: { "accept-language": "fr" } });
    expect((await body(res)).fields!.hourlyRate).toBe("Le tarif horaire est requis");
  });

  test.each([
    [{ duration: "0.5" }, 30, null],
    [{ duration: "1.5", maxDuration: "2" }, 90, 120],
    [{ duration: "3.5", maxDuration: "4" }, 210, 240],
    [{ minDurationMinutes: 120, maxDurationMinutes: 180 }, 120, 180],
    [{ duration: "1", maxDuration: null }, 60, null],
  ])("durations %j are stored as %i and %p minutes", async (change, min, max) => {
    const res = await host.request("/api/activities", { method: "POST", json: { ...valid, ...change } });
    expect(res.status).toBe(201);
    const row = await one(t.db.select().from(activities).where(eq(activities.id, (await body(res)).id as string)));
    expect([row!.minDurationMinutes, row!.maxDurationMinutes]).toEqual([min, max]);
  });

  test("'share later' clears the meeting point", async () => {
    const created = await body(await host.request("/api/activities", { method: "POST", json: { ...valid, hasMeetingPoint: true, meetingPoint: "Jardin du Luxembourg" } }));
    expect(created).toMatchObject({ hasMeetingPoint: true, meetingPoint: "Jardin du Luxembourg" });
    const updated = await body(await host.request(`/api/activities/${created.id}`, { method: "PATCH", json: { hasMeetingPoint: false, meetingPoint: "Jardin du Luxembourg" } }));
    expect(updated).toMatchObject({ hasMeetingPoint: false, meetingPoint: null });
  });

  test("prices at the limits of durations follow the money rules", () => {
    expect(priceFor(4550, 30)).toMatchObject({ subtotalCents: 2275, serviceFeeCents: 228, totalCents: 2503, platformFeeCents: 455, hostEarningsCents: 1820 });
    expect(priceFor(1_000_000, 240)).toMatchObject({ subtotalCents: 4_000_000, totalCents: 4_400_000, hostEarningsCents: 3_200_000 });
  });
});

describe("who may change what", () => {
  let id: string;
  beforeAll(async () => {
    id = (await body(await host.request("/api/activities", { method: "POST", json: valid }))).id as string;
  });

  test("a stranger cannot edit or delete: 404, and nothing changes", async () => {
    const before = await one(t.db.select().from(activities).where(eq(activities.id, id)));
    expect((await stranger.request(`/api/activities/${id}`, { method: "PATCH", json: { title: "Mine now" } })).status).toBe(404);
    expect((await stranger.request(`/api/activities/${id}`, { method: "DELETE" })).status).toBe(404);
    expect((await stranger.get(`/edit-activity/${id}`)).status).toBe(404);
    const row = await one(t.db.select().from(activities).where(eq(activities.id, id)));
    expect(row).toEqual(before!);
  });

  test("the host edits: only given fields change", async () => {
    const res = await host.request(`/api/activities/${id}`, { method: "PATCH", json: { title: "Tennis, all levels", hourlyRate: 50 } });
    expect(res.status).toBe(200);
    expect(await body(res)).toMatchObject({ title: "Tennis, all levels", hourlyRate: "50.00", description: valid.description });
    expect((await host.request(`/api/activities/${id}`, { method: "PATCH", json: { title: "" } })).status).toBe(400);
  });

  test("deleting without bookings erases; with bookings it archives", async () => {
    // An activity of its own: the others of this block use `id`.
    const unbooked = (await body(await host.request("/api/activities", { method: "POST", json: valid }))).id as string;
    const res = await host.request(`/api/activities/${unbooked}`, { method: "DELETE" });
    expect(await body(res)).toEqual({ status: "deleted" });
    expect(await one(t.db.select().from(activities).where(eq(activities.id, unbooked)))).toBeUndefined();

    const booked = (await body(await host.request("/api/activities", { method: "POST", json: valid }))).id as string;
    const hostRow = (await body(await host.get("/api/user"))) as { id: string };
    const guestRow = (await body(await stranger.get("/api/user"))) as { id: string };
    const now = Date.now();
    await writeTransaction(t.db, (tx) => tx.insert(bookings).values({
      id: crypto.randomUUID(), guestId: guestRow.id, hostId: hostRow.id, activityId: booked, status: "completed",
      startsAtLocal: "2026-10-01T10:00:00", timeZone: "Europe/Paris", startsAt: now - 86400000, endsAt: now - 82800000, durationMinutes: 60,
      hourlyRateCents: 4550, ...priceFor(4550, 60), respondBy: now, createdAt: now,
    }));
    expect(await body(await host.request(`/api/activities/${booked}`, { method: "DELETE" }))).toEqual({ status: "archived" });
    const row = await one(t.db.select().from(activities).where(eq(activities.id, booked)));
    expect(row!.archivedAt).not.toBeNull();
    expect((await stranger.get(`/api/activities/${booked}`)).status).toBe(404);
    const page = await stranger.get(`/activity/${booked}`);
    expect(page.status).toBe(404);
    expect(await page.text()).toContain("Activity not found");
  });
});

describe("browse", () => {
  let b: Awaited<ReturnType<typeof makeTestApp>>;
  let guest: Client;
  beforeAll(async () => {
    b = await makeTestApp();
    await seedDemo(b.db);
    guest = b.client();
    await guest.signUpComplete({ city: "New York" });
  });
  afterAll(() => b.cleanup());

  test("lists the user's city, newest first, with count text, ratings and hosts", async () => {
    const html = await (await guest.get("/")).text();
    expect(html).toContain("Activities in New York");
    expect(html).toMatch(/\d+ activities found/);
    expect(html).toContain("★ ");
    const list = (await body(await guest.get("/api/activities?city=Paris"))) as unknown as { city: string; host: { name: string }; createdAt: number }[];
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((a) => a.city === "Paris" && a.host.name)).toBe(true);
    expect([...list].sort((x, y) => y.createdAt - x.createdAt)).toEqual(list);
  });

  test("a kept browse body follows the language, the filters and every change", async () => {
    const page = async (path: string, language = "en") => (await guest.get(path, { "accept-language": language })).text();
    const en = await page("/browse?city=Chicago");
    expect(await page("/browse?city=Chicago")).toBe(en);
    const french = b.client();
    await french.signUpComplete({ city: "Chicago" });
    await french.postForm("/api/locale", { locale: "fr", next: "/" });
    expect(await (await french.get("/browse?city=Chicago")).text()).toContain("Activités à Chicago");
    expect(await page("/browse?city=Chicago&filters=1")).toMatch(/<details class="mt-3" open/);
    expect(en).not.toMatch(/<details class="mt-3" open/);
    const host = b.client();
    await host.signUpComplete({ username: "chicago.host", city: "Chicago", country: "United States" });
    await host.request("/api/activities", { method: "POST", json: { ...valid, title: "Surf at Carcavelos" } });
    expect(await page("/browse?city=Chicago")).toContain("Surf at Carcavelos");
  });

  test("filters by category; 'All' is no category; unknown categories are ignored", async () => {
    for (const category of ["sports", "food"]) {
      const list = (await body(await guest.get(`/api/activities?city=New%20York&category=${category}`))) as unknown as { category: string }[];
      expect(list.every((a) => a.category === category)).toBe(true);
    }
    const all = (await body(await guest.get("/api/activities?city=New%20York"))) as unknown as unknown[];
    const bogus = (await body(await guest.get("/api/activities?city=New%20York&category=%3Cscript%3E"))) as unknown as unknown[];
    expect(bogus.length).toBe(all.length);
  });

  test("the count text is singular for 1 or fewer", async () => {
    const empty = await (await guest.get("/browse?city=Honolulu")).text();
    expect(empty).toContain("0 activity found");
    expect(empty).toContain("No activities found");
    expect(empty).toContain("Try changing your city or category");
  });

  test("htmx gets only the list, with the filters in the URL it pushes", async () => {
    const res = await guest.get("/browse?city=Paris&category=food", { "hx-request": "true", "hx-target": "browse" });
    const html = await res.text();
    expect(html.startsWith('<div id="browse"')).toBe(true);
    expect(html).toContain("Activities in Paris");
    expect(html).not.toContain("<html");
    const full = await guest.get("/browse?city=Paris&category=food", { "hx-request": "true", "hx-history-restore-request": "true" });
    expect(await full.text()).toContain("<html");
  });

  test("pages follow each other without gaps or repeats, and archived activities are hidden", async () => {
    const { seedGeneratedActivities } = await import("../src/demo/seed");
    await seedGeneratedActivities(b.db, 120);
    const seen = new Set<string>();
    let cursor: string | null = null;
    let total = 0;
    do {
      const res = await guest.get(`/api/activities?city=Tokyo&limit=25${cursor ? `&cursor=${cursor}` : ""}`);
      total = Number(res.headers.get("x-total-count"));
      cursor = res.headers.get("x-next-cursor");
      for (const a of (await body(res)) as unknown as { id: string }[]) {
        expect(seen.has(a.id)).toBe(false);
        seen.add(a.id);
      }
    } while (cursor);
    expect(seen.size).toBe(total);

    const [hidden] = [...seen];
    await writeTransaction(b.db, (tx) => tx.update(activities).set({ archivedAt: Date.now(), active: false }).where(eq(activities.id, hidden!)));
    const after = (await body(await guest.get("/api/activities?city=Tokyo&limit=100"))) as unknown as { id: string }[];
    expect(after.some((a) => a.id === hidden)).toBe(false);
  });

  test("'Load more' brings the next page as list items", async () => {
    const { seedGeneratedActivities } = await import("../src/demo/seed");
    await seedGeneratedActivities(b.db, 200);
    const first = await (await guest.get("/browse?city=Tokyo")).text();
    const more = /hx-get="([^"]*page=more)"/.exec(first)![1]!.replace(/&amp;/g, "&");
    const next = await (await guest.get(more, { "hx-request": "true" })).text();
    expect(next.startsWith("<li>")).toBe(true);
    expect(next).toContain('href="/activity/');
  });

  test("a forged cursor is just the first page", async () => {
    const first = await guest.get("/api/activities?city=Tokyo");
    const forged = await guest.get("/api/activities?city=Tokyo&cursor=%27%20OR%201%3D1");
    expect(forged.status).toBe(200);
    expect(await forged.json()).toEqual(await first.json());
    expect(forged.headers.get("x-next-cursor")).toBe(first.headers.get("x-next-cursor"));
  });
});

describe("pages", () => {
  test("the activity page shows its details, the host link and Request & Pay", async () => {
    const created = await body(await host.request("/api/activities", { method: "POST", json: { ...valid, duration: "0.5", maxDuration: "2", hasMeetingPoint: true, meetingPoint: "Court 3" } }));
    const html = await (await stranger.get(`/activity/${created.id}`)).text();
    expect(html).toContain("Tennis for beginners");
    expect(html).toContain("30 min to 2 h");
    expect(html).toContain('href="/profile/thehost"');
    expect(html).toContain(`href="/booking/${created.id}/date-time"`);
    expect(html).toContain("Court 3");
    expect(islandProps(html, "ActivityMap")).toMatchObject({ query: "Court 3, Paris, France", zoom: 16 });
    const own = await (await host.get(`/activity/${created.id}`)).text();
    expect(own).toContain(`href="/edit-activity/${created.id}"`);
    expect(own).not.toContain("/date-time");
  });

  test("a kept page body carries each visitor's own CSRF token and follows every change", async () => {
    const created = await body(await host.request("/api/activities", { method: "POST", json: valid }));
    const other = t.client();
    await other.signUpComplete({ username: "another.guest" });
    const tokensIn = (html: string) => [...html.matchAll(/name="_csrf" value="([^"]+)"/g)].map((m) => m[1]);
    for (let i = 0; i < 2; i++) {
      const mine = await (await stranger.get(`/activity/${created.id}`)).text();
      const theirs = await (await other.get(`/activity/${created.id}`)).text();
      expect(tokensIn(mine).length).toBeGreaterThan(0);
      expect(new Set(tokensIn(mine))).toEqual(new Set([stranger.csrf]));
      expect(new Set(tokensIn(theirs))).toEqual(new Set([other.csrf]));
      expect(mine).not.toMatch(/csrfslot|<!--kept:/);
      // Apart from the token, two guests get the same page.
      expect(mine.replaceAll(stranger.csrf, "").replace(/another\.guest|stranger/g, "")).toBe(theirs.replaceAll(other.csrf, "").replace(/another\.guest|stranger/g, ""));
    }
    const signedOut = await (await t.client().get(`/activity/${created.id}`)).text();
    expect(signedOut).not.toMatch(/csrfslot|<!--kept:/);
    expect(await (await host.get(`/activity/${created.id}`)).text()).toContain(`href="/edit-activity/${created.id}"`);
    await writeTransaction(t.db, (tx) => tx.update(activities).set({ title: "Tennis at dawn" }).where(eq(activities.id, String(created.id))));
    expect(await (await stranger.get(`/activity/${created.id}`)).text()).toContain("Tennis at dawn");
  });

  test("without a meeting point the city area is shown with the note", async () => {
    const created = await body(await host.request("/api/activities", { method: "POST", json: valid }));
    const html = await (await stranger.get(`/activity/${created.id}`)).text();
    expect(html).toContain("The exact location is shared by message before the activity.");
    expect(islandProps(html, "ActivityMap")).toMatchObject({ query: "Paris, France", zoom: 12 });
  });

  test("an unknown id is 'Activity not found' with 'Back to Browse'", async () => {
    for (const id of [crypto.randomUUID(), "not-a-uuid"]) {
      const res = await stranger.get(`/activity/${id}`);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toContain("Activity not found");
      expect(html).toContain("Back to Browse");
    }
  });

  test("the create form saves and goes to the dashboard with 'Activity created successfully!'", async () => {
    const bad = await host.postForm("/create-activity", { title: "Yoga", description: "Calm", category: "wellness", hourlyRate: "", hasMeetingPoint: "false", photos: "[]" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Hourly rate is required");
    const ok = await host.postForm("/create-activity", { title: "Yoga", description: "Calm", category: "wellness", hourlyRate: "20", hasMeetingPoint: "false", photos: "[]" });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/host-dashboard");
    const dashboard = await (await host.get("/host-dashboard")).text();
    expect(dashboard).toContain("Activity created successfully!");
    expect(dashboard).toContain("Yoga");
  });

  test("the dashboard counts activities, requests and earnings from real data", async () => {
    const d = await makeTestApp();
    const put = insert(d.db);
    const hostUser = await put.user(userRow({ username: "counted" }));
    const guestUser = await put.user(userRow());
    const made = await Promise.all([0, 1, 2].map((i) => put.activity(activityRow(hostUser, { title: `Lesson ${i}`, hourlyRateCents: 5000 }))));
    const start = Date.parse("2026-12-10T15:00:00Z");
    // Two open requests, one completed booking of 2 hours at $50 (host earns 80 % of $100), one declined.
    await put.booking(bookingRow(made[0]!, { guestId: guestUser.id, startsAt: start }));
    await put.booking(bookingRow(made[1]!, { guestId: guestUser.id, startsAt: start + 86_400_000 }));
    const done = await put.booking(bookingRow(made[2]!, { guestId: guestUser.id, startsAt: start - 30 * 86_400_000, status: "completed", durationMinutes: 120 }));
    await put.ledger(completedLedgerRows(done));
    await put.booking(bookingRow(made[2]!, { guestId: guestUser.id, startsAt: start - 20 * 86_400_000, status: "rejected" }));
    const c = d.client();
    await c.signInAs(hostUser.id);

    const earnings = await body(await c.get("/api/host/earnings"));
    expect(earnings).toEqual({ totalEarnings: "80.00", pendingPayouts: "80.00", currency: "usd", completedBookings: 1, byCurrency: [{ currency: "usd", totalEarnings: "80.00", pendingPayouts: "80.00", completedBookings: 1 }] });
    expect(((await body(await c.get("/api/host/requests"))) as unknown as unknown[]).length).toBe(2);
    const html = await (await c.get("/host")).text();
    const counter = (label: string) => new RegExp(`>\\s*(\\d+|\\$[\\d,.]+)\\s*</[^>]+>\\s*<[^>]+>\\s*${label}\\s*<`).exec(html)?.[1];
    expect(counter("Activities")).toBe("3");
    expect(counter("Requests")).toBe("2");
    // Earnings to the cent, as the spec shows them.
    expect(counter("Earnings")).toBe("$80.00");
    // Earnings and no payout account: the way to set one up.
    expect(html).toContain("Verify Account to Withdraw");
    d.cleanup();
  });

  test("the wizard pages render their island, and edit is only for the host", async () => {
    const created = await body(await host.request("/api/activities", { method: "POST", json: valid }));
    expect(await (await host.get("/create-activity-flow")).text()).toContain('data-island="ActivityWizard"');
    const edit = await (await host.get(`/edit-activity/${created.id}`)).text();
    expect(edit).toContain("Tennis for beginners");
    expect((await stranger.get(`/edit-activity/${created.id}`)).status).toBe(404);
  });

  test("the wizard's counters come with their limit written in the language, never as a raw plural form", async () => {
    for (const lang of ["en", "fr"]) {
      const html = await (await host.get("/create-activity-flow", { "accept-language": lang })).text();
      expect(html).not.toMatch(/,\s*plural\s*,/);
      expect(html).toContain(lang === "fr" ? "{count}/50 caractères" : "{count}/50 characters");
    }
  });

  test("every category has a label in both languages and a default photo", async () => {
    const en = translator("en");
    const fr = translator("fr");
    for (const c of categories) {
      const key = categoryLabelKey(c);
      expect(en(key)).not.toBe(key);
      expect(en(key).length).toBeGreaterThan(2);
      expect(fr(key)).not.toBe(key);
      expect((await stranger.get(`/static/photos/${c}-1.svg`)).status).toBe(200);
    }
    // The browse filter shows them.
    const browse = await (await stranger.get("/browse?filters=1")).text();
    for (const c of categories) expect(browse).toContain(`>${en(categoryLabelKey(c))}<`);
  });
});

describe("creating many activities", () => {
  let now = Date.parse("2026-03-01T09:00:00Z");
  let r: Awaited<ReturnType<typeof makeTestApp>>;
  beforeAll(async () => {
    // The limits the app runs with, on a clock the test moves.
    r = await makeTestApp({ now: () => now, limits: { activityCreate: makeLimits().activityCreate } });
  });
  afterAll(() => r.cleanup());
  const form = { title: "Yoga", description: "Calm", category: "wellness", hourlyRate: "20", hasMeetingPoint: "false", photos: "[]" };
  const count = async (hostId: string) => (await r.db.select().from(activities).where(eq(activities.hostId, hostId))).length;

  test("20 an hour per host, from the API (the wizard's call) and the form together; the 21st is 429", async () => {
    const c = r.client();
    const { user } = await c.signUpComplete();
    for (let i = 0; i < 10; i++) expect((await c.request("/api/activities", { method: "POST", json: valid })).status).toBe(201);
    for (let i = 0; i < 10; i++) expect((await c.postForm("/create-activity", form)).status).toBe(303);
    expect(await count(user.id)).toBe(20);

    const api = await c.request("/api/activities", { method: "POST", json: valid });
    expect(api.status).toBe(429);
    expect(Number(api.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await body(api)).message).toBe("You have created many activities in a short time. Please wait 60 minutes before creating another.");
    const page = await c.postForm("/create-activity", form);
    expect(page.status).toBe(429);
    expect(Number(page.headers.get("retry-after"))).toBeGreaterThan(0);
    const html = await page.text();
    expect(html).toContain("You have created many activities in a short time.");
    expect(html).toContain('value="Yoga"');
    const fr = await c.request("/api/activities", { method: "POST", json: valid, headers: { "accept-language": "fr" } });
    expect((await body(fr)).message).toContain("Vous avez créé beaucoup d'activités");
    expect(await count(user.id)).toBe(20);

    // Another host is not held back.
    const other = r.client();
    await other.signUpComplete();
    expect((await other.request("/api/activities", { method: "POST", json: valid })).status).toBe(201);

    // An hour later the host creates again.
    now += 60 * 60 * 1000 + 1;
    expect((await c.request("/api/activities", { method: "POST", json: valid })).status).toBe(201);
    expect(await count(user.id)).toBe(21);
  });

  test("refused activities do not count", async () => {
    const c = r.client();
    await c.signUpComplete();
    for (let i = 0; i < 25; i++) expect((await c.request("/api/activities", { method: "POST", json: { ...valid, title: "" } })).status).toBe(400);
    expect((await c.request("/api/activities", { method: "POST", json: valid })).status).toBe(201);
  });
});

describe("browse requests", () => {
  test("the page and the API read city, category, size and cursor by the same rules", () => {
    const person = { city: "Paris" };
    expect(readBrowseQuery({ city: "Tokyo", category: "food", cursor: "abc" }, person)).toEqual({ city: "Tokyo", category: "food", limit: 20, cursor: "abc" });
    // An unlisted city or category falls back: the person's city, then the default; all categories.
    expect(readBrowseQuery({ city: "Atlantis", category: "nope" }, person)).toEqual({ city: "Paris", category: undefined, limit: 20, cursor: undefined });
    expect(readBrowseQuery({ city: ["Tokyo"] }, null)).toEqual({ city: "New York", category: undefined, limit: 20, cursor: undefined });
    // Only the API takes a page size, between 1 and 100.
    expect(readBrowseQuery({ limit: "500" }, null, { sizeFromQuery: true }).limit).toBe(100);
    expect(readBrowseQuery({ limit: "0" }, null, { sizeFromQuery: true }).limit).toBe(20);
    expect(readBrowseQuery({ limit: "7" }, null).limit).toBe(20);
  });
});
