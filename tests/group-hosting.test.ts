import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one } from "../db/client";
import { activities, type Activity } from "../db/schema";
import { bookingRow, insert, userRow } from "../src/demo/factories";
import { groupPriceFor } from "../shared/pricing";
import { makeTestApp, type Client } from "./helpers";
import { fieldValue, islandProps } from "./html";

/**
 * The host's screens for group sessions (docs/decisions/0049): creating and changing a group
 * through the API and the plain form, the dashboard's rosters, the bookings list, and the price
 * per person on browse and the activity page.
 */

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let hostId: string;
beforeAll(async () => {
  t = await makeTestApp();
  host = t.client();
  hostId = (await host.signUpComplete({ firstName: "Hana", city: "New York", country: "United States" })).user.id;
});
afterAll(() => t.cleanup());

type Json = Record<string, unknown> & { fields?: Record<string, string>; message?: string };
const json = async (res: Response) => (await res.json()) as Json;
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

const base = { title: "Pottery circle", description: "Wheel throwing for small groups.", category: "art" };
const group = { format: "group", capacity: 8, pricePerPerson: "25", sessionMinutes: 120 };
const activityOf = async (id: string) => (await one(t.db.select().from(activities).where(eq(activities.id, id))))!;

/** A group activity written directly, for the screens that show one. */
async function groupActivity(overrides: Partial<Activity> = {}) {
  return insert(t.db).activity({
    id: crypto.randomUUID(),
    hostId,
    country: "United States",
    city: "New York",
    category: "art",
    title: "Pottery circle",
    description: "Wheel throwing for small groups.",
    hourlyRateCents: 2500,
    photos: [],
    format: "group",
    capacity: 8,
    pricePerPersonCents: 2500,
    sessionMinutes: 120,
    minSpots: 1,
    maxSpots: 8,
    minToRun: 4,
    minToRunHours: 24,
    createdAt: t.deps.now(),
    updatedAt: t.deps.now(),
    ...overrides,
  });
}

/** A guest's booking of spots in the session starting at `startsAt`, priced as booking does. */
async function seatBooking(activity: Activity, startsAt: number, spots: number, opts: { firstName?: string; privateGroup?: boolean; status?: "pending" | "accepted" | "awaiting_payment" } = {}) {
  const guest = await insert(t.db).user(userRow({ firstName: opts.firstName ?? "Guest" }));
  const price = groupPriceFor(activity.pricePerPersonCents!, spots, opts.privateGroup ? activity.privateGroupPriceCents : null);
  return insert(t.db).booking(
    bookingRow(activity, {
      guestId: guest.id,
      startsAt,
      status: opts.status ?? "pending",
      durationMinutes: activity.sessionMinutes!,
      createdAt: t.deps.now() - HOUR,
      ...price,
      spots,
      pricePerPersonCents: activity.pricePerPersonCents,
      privateGroup: opts.privateGroup ?? false,
      holdUntil: opts.status === "awaiting_payment" ? t.deps.now() + HOUR : null,
    }),
  );
}

/** A session start three days on, on the hour. */
const sessionStart = (days = 3) => Math.floor((t.deps.now() + days * DAY) / HOUR) * HOUR;

describe("a group through the API", () => {
  test("a valid group is created with its fields, without an hourly rate", async () => {
    const res = await host.request("/api/activities", { method: "POST", json: { ...base, ...group, minSpots: 2, maxSpots: 4, privateGroupPrice: "150", minToRun: 3, minToRunHours: 48 } });
    expect(res.status).toBe(201);
    const a = await json(res);
    expect(a).toMatchObject({ format: "group", capacity: 8, pricePerPerson: "25.00", sessionMinutes: 120, minSpots: 2, maxSpots: 4, privateGroupPrice: "150.00", minToRun: 3, minToRunHours: 48 });
    const row = await activityOf(a.id as string);
    expect(row.hourlyRateCents).toBe(2500);
  });

  test("the fewest and most spots per booking default to 1 and the capacity; the deadline to 24 hours", async () => {
    const res = await host.request("/api/activities", { method: "POST", json: { ...base, ...group, minToRun: 2 } });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ minSpots: 1, maxSpots: 8, minToRun: 2, minToRunHours: 24, privateGroupPrice: null });
  });

  for (const capacity of [1, 51]) {
    test(`a capacity of ${capacity} is refused with its message under the capacity`, async () => {
      const before = (await t.db.select().from(activities)).length;
      const res = await host.request("/api/activities", { method: "POST", json: { ...base, ...group, capacity } });
      expect(res.status).toBe(400);
      expect((await json(res)).fields).toMatchObject({ capacity: "Capacity must be between 2 and 50" });
      expect((await t.db.select().from(activities)).length).toBe(before);
    });
  }

  test("a session longer than any range of the weekly hours is refused under the session length", async () => {
    const weeklyHours = ["09:00-10:00", "", "", "", "", "", ""];
    const res = await host.request("/api/activities", { method: "POST", json: { ...base, ...group, weeklyHours } });
    expect(res.status).toBe(400);
    expect((await json(res)).fields).toMatchObject({ sessionMinutes: "A session this long does not fit in your weekly hours" });
  });

  test("the capacity cannot go below the spots a session already holds", async () => {
    const activity = await groupActivity({ minToRun: null });
    const startsAt = sessionStart(5);
    await seatBooking(activity, startsAt, 3, { firstName: "Ana" });
    await seatBooking(activity, startsAt, 2, { firstName: "Ben", status: "accepted" });
    const lower = await host.request(`/api/activities/${activity.id}`, { method: "PATCH", json: { capacity: 4 } });
    expect(lower.status).toBe(400);
    expect((await json(lower)).fields).toMatchObject({ capacity: "A session already has more spots held than this: the capacity cannot be lower" });
    expect((await activityOf(activity.id)).capacity).toBe(8);
    const enough = await host.request(`/api/activities/${activity.id}`, { method: "PATCH", json: { capacity: 5, maxSpots: 5 } });
    expect(enough.status).toBe(200);
    expect((await activityOf(activity.id)).capacity).toBe(5);
  });
});

describe("a group through the plain create form", () => {
  const form = { title: "Clay night", description: "Hand building.", category: "art", hourlyRate: "", hasMeetingPoint: "false", photos: "[]", format: "group", capacity: "6", pricePerPerson: "30", sessionMinutes: "90", minSpots: "", maxSpots: "", privateGroupPrice: "", minToRun: "", minToRunHours: "24" };

  test("the form creates a group, its empty hourly rate and optional fields left out", async () => {
    const res = await host.postForm("/create-activity", form);
    expect(res.status).toBe(303);
    const row = await one(t.db.select().from(activities).where(eq(activities.title, "Clay night")));
    expect(row).toMatchObject({ format: "group", capacity: 6, pricePerPersonCents: 3000, sessionMinutes: 90, minSpots: 1, maxSpots: 6, privateGroupPriceCents: null, minToRun: null });
  });

  test("a refused form shows each message under its field, with what was typed kept", async () => {
    const res = await host.postForm("/create-activity", { ...form, title: "Clay morning", capacity: "51", minToRun: "60" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('id="field-capacity-error"');
    expect(html).toMatch(/id="field-capacity-error"[^>]*>Capacity must be between 2 and 50</);
    expect(fieldValue(html, "capacity")).toBe("51");
    expect(fieldValue(html, "pricePerPerson")).toBe("30");
    expect(fieldValue(html, "title")).toBe("Clay morning");
    expect(html).toMatch(/<option value="90" selected/);
    expect(html).toMatch(/id="field-format-group"[^>]*checked/);
    expect(await one(t.db.select().from(activities).where(eq(activities.title, "Clay morning")))).toBeUndefined();
  });

  test("the empty form offers the choice of Private and Group, Private chosen", async () => {
    const html = await (await host.request("/create-activity")).text();
    expect(html).toMatch(/id="field-format-private"[^>]*checked/);
    expect(html).toContain("Sessions with seats, sold per person.");
    expect(html).toContain('name="sessionMinutes"');
    expect(html).toContain("8 h");
  });

  test("a private activity is created from the same form as before", async () => {
    const res = await host.postForm("/create-activity", { ...form, title: "Private wheel", format: "private", hourlyRate: "40", capacity: "", pricePerPerson: "", sessionMinutes: "" });
    expect(res.status).toBe(303);
    expect(await one(t.db.select().from(activities).where(eq(activities.title, "Private wheel")))).toMatchObject({ format: "private", hourlyRateCents: 4000, capacity: null });
  });
});

describe("the host's screens", () => {
  let activity: Activity;
  let startsAt: number;
  beforeAll(async () => {
    activity = await groupActivity({ title: "Glaze lab", privateGroupPriceCents: 15000 });
    startsAt = sessionStart(3);
    await seatBooking(activity, startsAt, 3, { firstName: "Chloe" });
    await seatBooking(activity, startsAt, 2, { firstName: "Dmitri", status: "accepted" });
  });

  test("the dashboard shows the session's roster, each guest's first name, spots and money", async () => {
    const html = await (await host.request("/host")).text();
    expect(html).toContain("Upcoming sessions");
    expect(html).toContain("5 of 8 · min 4");
    expect(html).toContain("Chloe");
    expect(html).toContain("3 spots");
    expect(html).toContain("Dmitri");
    // 3 × $25 = $75, with the guest's 10% fee $82.50; the host earns 80%: $60.00.
    expect(html).toContain("Pays $82.50 · you earn $60.00");
    // Guests are named by first name only.
    expect(html).not.toContain("Rivera");
  });

  test("a guest still paying holds spots without being named", async () => {
    const other = sessionStart(4);
    await seatBooking(activity, other, 2, { firstName: "Payer", status: "awaiting_payment" });
    const html = await (await host.request("/host")).text();
    expect(html).toContain("2 of 8 · min 4");
    expect(html).toContain("2 spots held while a guest pays");
    expect(html).not.toContain("Payer");
  });

  test("a private group takes the whole session and is marked", async () => {
    const whole = sessionStart(6);
    await seatBooking(activity, whole, 4, { firstName: "Elena", privateGroup: true });
    const html = await (await host.request("/host")).text();
    expect(html).toContain("8 of 8 · min 4");
    expect(html).toContain("Private group");
  });

  test("the activity row shows the price per person and the group's size", async () => {
    const html = await (await host.request("/host/activities")).text();
    expect(html).toContain("$25 / person · Group of up to 8");
  });

  test("the bookings list shows a group booking's spots, money and, for the host, the roster", async () => {
    const html = await (await host.request("/bookings")).text();
    expect(html).toContain("data-booking-spots");
    expect(html).toContain("3 spots");
    expect(html).toContain("5 of 8 · min 4");
  });

  test("the booking's own page shows its spots and a private group", async () => {
    const booking = await seatBooking(activity, sessionStart(8), 3, { firstName: "Farah", privateGroup: true });
    const html = await (await host.request(`/bookings/${booking.id}`)).text();
    expect(html).toContain("3 spots · Private group");
  });

  test("the edit wizard is given the group's values", async () => {
    const html = await (await host.request(`/edit-activity/${activity.id}`)).text();
    const props = islandProps(html, "ActivityWizard") as { activity: Record<string, unknown>; sessionChoices: { value: number }[]; deadlineChoices: { value: number }[] };
    expect(props.activity).toMatchObject({ format: "group", capacity: "8", pricePerPerson: "25.00", sessionMinutes: 120, minSpots: "1", maxSpots: "8", privateGroupPrice: "150.00", minToRun: "4", minToRunHours: 24 });
    expect(props.sessionChoices.map((c) => c.value)).toEqual(Array.from({ length: 16 }, (_, i) => 30 + i * 30));
    expect(props.deadlineChoices.map((c) => c.value)).toEqual([2, 4, 12, 24, 48, 72]);
  });

  test("browse shows a group's price per person and session length", async () => {
    const html = await (await host.request("/?city=New%20York")).text();
    expect(html).toMatch(/\$25<\/span><span> \/ person<\/span><span> · 2 h session<\/span>/);
  });

  test("the activity page's chips and bottom bar show the price per person and the session", async () => {
    const html = await (await host.request(`/activity/${activity.id}`)).text();
    expect(html).toMatch(/data-price[^>]*>\$25 \/ person</);
    expect(html).toMatch(/data-session[^>]*>2 h session</);
    expect(html).toContain("Group of up to 8");
    expect(html).not.toContain("/hour");
  });

  test("in French, per person reads as such", async () => {
    const html = await (await host.request(`/activity/${activity.id}`, { headers: { "accept-language": "fr" } })).text();
    expect(html).toContain("/ personne");
    expect(html).toContain("Session de 2 h");
  });
});
