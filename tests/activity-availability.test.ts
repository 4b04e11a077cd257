import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, type Activity } from "../db/schema";
import { HORIZON_CHOICES, NOTICE_CHOICES, type WeeklyHours } from "../shared/availability";
import { parseDayText, readWeeklyHours } from "../src/activities/input";
import { translator } from "../src/texts";
import { weeklyHoursSummary } from "../views/activities/Availability";
import { makeTestApp, type Client } from "./helpers";
import { formData, islandProps } from "./html";
import { inHtml, scenarios, type Scenario } from "./scenario";

/** When hosts can be booked, as they set it (docs/decisions/0037-availability.md). */

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let guest: Client;
let hostId: string;
beforeAll(async () => {
  t = await makeTestApp();
  host = t.client();
  hostId = (await host.signUpComplete({ username: "hourshost", city: "Paris", country: "France" })).user.id;
  guest = t.client();
  await guest.signUpComplete({ username: "hoursguest" });
});
afterAll(() => t.cleanup());

type Json = Record<string, unknown> & { fields?: Record<string, string>; message?: string };
const body = async (res: Response) => (await res.json()) as Json;
const valid = { title: "Morning rowing", description: "Two hours on the lake.", category: "sports", hourlyRate: "30" };
const form = { ...valid, hasMeetingPoint: "false", photos: "[]" };
const closed = ["", "", "", "", "", "", ""];
const weekendMornings: WeeklyHours = [[], [], [], [], [], [[540, 720]], [[540, 720]]];
const rows = async () => t.db.select().from(activities).where(eq(activities.hostId, hostId));
const row = async (id: string) => (await t.db.select().from(activities).where(eq(activities.id, id)))[0] as Activity;
/** The form's day fields: `hours0` (Monday) … `hours6` (Sunday). */
const days = (texts: string[]) => Object.fromEntries(texts.map((text, d) => [`hours${d}`, text]));

describe("reading weekly hours", () => {
  test("a day's text: ranges with a hyphen or a dash, commas or semicolons, empty is closed", () => {
    expect(parseDayText("09:00-12:00, 14:00-18:00")).toEqual([[540, 720], [840, 1080]]);
    expect(parseDayText("9:00–12:30; 18:00 - 24:00")).toEqual([[540, 750], [1080, 1440]]);
    expect(parseDayText("  ")).toEqual([]);
    expect(parseDayText("mornings")).toBeNull();
    expect(parseDayText("09:00")).toBeNull();
    // Read, then refused by the shared rules as off the half-hour grid.
    expect(parseDayText("09:15-10:00")![0]![0]).toBeNaN();
    expect(parseDayText("09:90-10:00")![0]![0]).toBeNaN();
  });

  test("the API's forms: null or 'any', minute pairs, the text form; nothing given changes nothing", () => {
    expect(readWeeklyHours({ weeklyHours: null })).toEqual({ hours: null });
    expect(readWeeklyHours({ weeklyHours: "any" })).toEqual({ hours: null });
    expect(readWeeklyHours({ weeklyHours: weekendMornings })).toEqual({ hours: weekendMornings });
    expect(readWeeklyHours({ weeklyHours: ["", "", "", "", "", "09:00-12:00", [[540, 720]]] })).toEqual({ hours: weekendMornings });
    expect(readWeeklyHours({ weeklyHours: [[[720, 840], [540, 600]], [], [], [], [], [], null] })).toEqual({ hours: [[[540, 600], [720, 840]], [], [], [], [], [], []] });
    expect(readWeeklyHours({ hoursMode: "weekly", ...days(["", "", "", "", "", "09:00-12:00", "09:00-12:00"]) })).toEqual({ hours: weekendMornings });
    expect(readWeeklyHours({ hoursMode: "any", ...days(["09:00-12:00", "", "", "", "", "", ""]) })).toEqual({ hours: null });
    expect(readWeeklyHours({})).toBeUndefined();
    for (const bad of [[[]], "weekly", 7, [1, 2, 3, 4, 5, 6, 7], [[["09:00", "12:00"]], [], [], [], [], [], []]]) expect(readWeeklyHours({ weeklyHours: bad })).toEqual({ problem: "activity.hoursInvalid" });
  });
});

describe("creating with availability", () => {
  test("through the API: weekly hours, notice, horizon and instant booking are stored and shown in the JSON", async () => {
    const res = await host.request("/api/activities", { method: "POST", json: { ...valid, weeklyHours: weekendMornings, noticeMinutes: 120, horizonDays: 30, instantBooking: true } });
    expect(res.status).toBe(201);
    const a = await body(res);
    expect(a).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 120, horizonDays: 30, instantBooking: true });
    expect(await row(a.id as string)).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 120, horizonDays: 30, instantBooking: true });
    // Public facts a guest needs: the activity's JSON shows them to anyone signed in.
    expect(await body(await guest.get(`/api/activities/${a.id}`))).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 120, horizonDays: 30, instantBooking: true });
  });

  test("the text form through the API; without any of them, the defaults (today's behaviour)", async () => {
    const text = await body(await host.request("/api/activities", { method: "POST", json: { ...valid, weeklyHours: ["09:00-12:00, 14:00-18:00", "", "", "", "", "", ""], noticeMinutes: "60", horizonDays: "7", instantBooking: "false" } }));
    expect(text).toMatchObject({ weeklyHours: [[[540, 720], [840, 1080]], [], [], [], [], [], []], noticeMinutes: 60, horizonDays: 7, instantBooking: false });
    const plain = await body(await host.request("/api/activities", { method: "POST", json: valid }));
    expect(plain).toMatchObject({ weeklyHours: null, noticeMinutes: 0, horizonDays: 90, instantBooking: false });
  });

  test("through the form without JavaScript: one text field per weekday, the selects and the checkbox", async () => {
    const page = await (await host.get("/create-activity")).text();
    const fields = formData(page, 'form[action="/create-activity"]');
    // Untouched, the form keeps any day and the defaults.
    expect(fields).toMatchObject({ hoursMode: "any", ...days(closed), noticeMinutes: "0", horizonDays: "90" });
    expect(fields.instantBooking).toBeUndefined();
    for (let d = 0; d < 7; d++) expect(page).toMatch(new RegExp(`<label[^>]*for="field-hours${d}"`));
    expect(page).toContain("Any day, starts from 8:00 AM to 10:00 PM");
    expect(page).toContain("Paid requests are accepted at once; you can still cancel with a full refund to the guest.");

    const before = (await rows()).length;
    const res = await host.postForm("/create-activity", { ...form, title: "Weekend rowing", hoursMode: "weekly", ...days(["", "", "", "", "", "09:00-12:00", "09:00-12:00"]), noticeMinutes: "1440", horizonDays: "14", instantBooking: "on" });
    expect(res.status).toBe(303);
    const made = (await rows()).find((a) => a.title === "Weekend rowing")!;
    expect((await rows()).length).toBe(before + 1);
    expect(made).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 1440, horizonDays: 14, instantBooking: true });

    const untouched = await host.postForm("/create-activity", { ...fields, ...form, title: "Any time rowing" });
    expect(untouched.status).toBe(303);
    expect((await rows()).find((a) => a.title === "Any time rowing")).toMatchObject({ weeklyHours: null, noticeMinutes: 0, horizonDays: 90, instantBooking: false });
  });

  const refusals: [string, Record<string, unknown>, Record<string, string>, string, string][] = [
    ["overlap", { weeklyHours: [[[540, 720], [660, 780]], [], [], [], [], [], []] }, { hoursMode: "weekly", ...days(["09:00-12:00, 11:00-13:00", "", "", "", "", "", ""]) }, "weeklyHours", "Monday: two ranges overlap."],
    ["end before start", { weeklyHours: [[], [], [[720, 540]], [], [], [], []] }, { hoursMode: "weekly", ...days(["", "", "12:00-09:00", "", "", "", ""]) }, "weeklyHours", "Wednesday: a range ends before it starts."],
    ["not on the half hour", { weeklyHours: [[], [], [], [], [], [[555, 720]], []] }, { hoursMode: "weekly", ...days(["", "", "", "", "", "09:15-12:00", ""]) }, "weeklyHours", "Saturday: times are on the hour or the half hour, from 00:00 to 24:00."],
    ["too many ranges", { weeklyHours: [[], [], [], [], [], [], [[0, 60], [120, 180], [240, 300], [360, 420], [480, 540], [600, 660], [720, 780]]] }, { hoursMode: "weekly", ...days(["", "", "", "", "", "", "00:00-01:00, 02:00-03:00, 04:00-05:00, 06:00-07:00, 08:00-09:00, 10:00-11:00, 12:00-13:00"]) }, "weeklyHours", "Sunday: 6 ranges at most."],
    ["unreadable", { weeklyHours: ["", "mornings", "", "", "", "", ""] }, { hoursMode: "weekly", ...days(["", "mornings", "", "", "", "", ""]) }, "weeklyHours", "Tuesday: write the hours as 09:00-12:00, 14:00-18:00."],
    ["every day closed", { weeklyHours: [[], [], [], [], [], [], []] }, { hoursMode: "weekly", ...days(closed) }, "weeklyHours", "Add hours to at least one day, or choose any day."],
    ["bad notice", { noticeMinutes: 45 }, { noticeMinutes: "45" }, "noticeMinutes", "Choose a minimum notice from the list."],
    ["bad horizon", { horizonDays: 400 }, { horizonDays: "400" }, "horizonDays", "Choose how far ahead guests can book from the list."],
    ["bad instant booking", { instantBooking: "maybe" }, { instantBooking: "maybe" }, "instantBooking", "Instant booking is either on or off."],
  ];

  scenarios(
    () => t,
    refusals.flatMap(([name, json, fields, field, message]): Scenario[] => [
      {
        name: `refused (${name}) through the API, with its message, and nothing is created`,
        as: () => host,
        method: "POST",
        url: "/api/activities",
        body: { ...valid, ...json },
        status: 400,
        json: { message, fields: { [field]: message } },
        unchanged: async () => (await rows()).length,
      },
      {
        name: `refused (${name}) through the form, with its message, and nothing is created`,
        as: () => host,
        method: "POST",
        url: "/create-activity",
        form: { ...form, ...fields },
        status: 400,
        contains: [
          `id="field-${field}-error"`,
          inHtml(message),
          // What was typed comes back.
          ...Object.entries(fields).flatMap(([k, v]) => (k.startsWith("hours") && v ? [`value="${v}"`] : [])),
        ],
        unchanged: async () => (await rows()).length,
      },
    ]),
  );

  test("a refusal about one day is tied to that day's field", async () => {
    const html = await (await host.postForm("/create-activity", { ...form, hoursMode: "weekly", ...days(["", "", "12:00-09:00", "", "", "", ""]) })).text();
    expect(html).toMatch(/id="field-hours2"[^>]*aria-invalid="true"[^>]*aria-describedby="hours-hint field-weeklyHours-error"/);
    expect(html).not.toMatch(/id="field-hours1"[^>]*aria-invalid/);
  });

  test("refusals in French", async () => {
    const res = await host.request("/api/activities", { method: "POST", json: { ...valid, weeklyHours: [[[540, 720], [660, 780]], [], [], [], [], [], []] }, headers: { "accept-language": "fr" } });
    expect((await body(res)).message).toBe("Lundi : deux plages se chevauchent.");
    const many = await host.request("/api/activities", { method: "POST", json: { ...valid, weeklyHours: [[[0, 60], [120, 180], [240, 300], [360, 420], [480, 540], [600, 660], [720, 780]], [], [], [], [], [], []] }, headers: { "accept-language": "fr" } });
    expect((await body(many)).message).toBe("Lundi : 6 plages au plus.");
  });

  test("every notice and horizon choice is accepted", async () => {
    for (const noticeMinutes of NOTICE_CHOICES) expect((await host.request("/api/activities", { method: "POST", json: { ...valid, noticeMinutes } })).status).toBe(201);
    for (const horizonDays of HORIZON_CHOICES) expect((await host.request("/api/activities", { method: "POST", json: { ...valid, horizonDays } })).status).toBe(201);
  });
});

describe("editing availability", () => {
  test("PATCH changes them, 'any' puts null back, other fields leave them alone, a refusal changes nothing", async () => {
    const a = await body(await host.request("/api/activities", { method: "POST", json: valid }));
    const path = `/api/activities/${a.id}`;
    const set = await host.request(path, { method: "PATCH", json: { weeklyHours: weekendMornings, noticeMinutes: 240, horizonDays: 365, instantBooking: true } });
    expect(set.status).toBe(200);
    expect(await body(set)).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 240, horizonDays: 365, instantBooking: true });

    // Another field alone: the availability stays.
    expect(await body(await host.request(path, { method: "PATCH", json: { title: "Rowing at dawn" } }))).toMatchObject({ title: "Rowing at dawn", weeklyHours: weekendMornings, noticeMinutes: 240, instantBooking: true });

    const refused = await host.request(path, { method: "PATCH", json: { weeklyHours: [[[600, 540]], [], [], [], [], [], []], noticeMinutes: 60 } });
    expect(refused.status).toBe(400);
    expect(await row(a.id as string)).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 240, horizonDays: 365, instantBooking: true });
    expect((await host.request(path, { method: "PATCH", json: { horizonDays: 3 } })).status).toBe(400);
    expect((await row(a.id as string)).horizonDays).toBe(365);

    const any = await host.request(path, { method: "PATCH", json: { weeklyHours: "any", instantBooking: false } });
    expect(await body(any)).toMatchObject({ weeklyHours: null, instantBooking: false, noticeMinutes: 240 });
    expect((await row(a.id as string)).weeklyHours).toBeNull();
    await host.request(path, { method: "PATCH", json: { weeklyHours: weekendMornings } });
    await host.request(path, { method: "PATCH", json: { weeklyHours: null } });
    expect((await row(a.id as string)).weeklyHours).toBeNull();

    // Only the host.
    expect((await guest.request(path, { method: "PATCH", json: { instantBooking: true } })).status).toBe(404);
    expect((await row(a.id as string)).instantBooking).toBe(false);
  });

  test("the edit wizard is given the saved settings, the choices and the labels", async () => {
    const a = await body(await host.request("/api/activities", { method: "POST", json: { ...valid, weeklyHours: weekendMornings, noticeMinutes: 120, horizonDays: 30, instantBooking: true } }));
    const props = islandProps(await (await host.get(`/edit-activity/${a.id}`)).text(), "ActivityWizard") as Record<string, unknown> & { activity: Record<string, unknown>; t: Record<string, string> };
    expect(props.activity).toMatchObject({ weeklyHours: weekendMornings, noticeMinutes: 120, horizonDays: 30, instantBooking: true });
    expect(props.noticeChoices).toContainEqual({ value: 120, label: "2 hours before" });
    expect(props.horizonChoices).toContainEqual({ value: 30, label: "30 days ahead" });
    expect((props.noticeChoices as unknown[]).length).toBe(NOTICE_CHOICES.length);
    expect(props.days).toEqual(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);
    expect(props.t.step7).toBe("Availability");
    expect(props.t.rangeFrom).toBe("{day}, range {index}: from");
    expect(props.t.hoursTooMany).toBe("{day}: 6 ranges at most.");
    const fresh = islandProps(await (await host.get("/create-activity-flow")).text(), "ActivityWizard") as { activity: Record<string, unknown> };
    expect(fresh.activity).toMatchObject({ weeklyHours: null, noticeMinutes: 0, horizonDays: 90, instantBooking: false });
  });
});

describe("the activity page", () => {
  test("shows instant booking and the weekly hours under the price; nothing when unset", async () => {
    const hours = [[[600, 720]], [], [], [], [], [[540, 720]], [[540, 720]]];
    const a = await body(await host.request("/api/activities", { method: "POST", json: { ...valid, weeklyHours: hours, instantBooking: true } }));
    const html = await (await guest.get(`/activity/${a.id}`)).text();
    expect(html).toContain("Instant booking");
    expect(html).toContain("Available: Mon 10:00 AM–12:00 PM · Sat, Sun 9:00 AM–12:00 PM");
    const fr = await (await guest.get(`/activity/${a.id}`, { "accept-language": "fr" })).text();
    expect(fr).toContain("Disponible : Lun 10:00–12:00 · Sam, Dim 09:00–12:00");
    expect(fr).toContain("Réservation instantanée");

    const plain = await body(await host.request("/api/activities", { method: "POST", json: valid }));
    const plainHtml = await (await guest.get(`/activity/${plain.id}`)).text();
    expect(plainHtml).not.toContain("data-availability");
    expect(plainHtml).not.toContain("Available:");

    // Edited: the kept page is read again.
    await host.request(`/api/activities/${a.id}`, { method: "PATCH", json: { weeklyHours: null, instantBooking: false } });
    const after = await (await guest.get(`/activity/${a.id}`)).text();
    expect(after).not.toContain("Available:");
    expect(after).not.toContain("data-availability");
  });

  test("the summary groups days with the same hours, in week order", () => {
    const en = { t: translator("en"), locale: "en" as const };
    const fr = { t: translator("fr"), locale: "fr" as const };
    const week = [[[540, 720], [840, 1080]], [], [[540, 720]], [], [[540, 720], [840, 1080]], [], [[0, 1440]]] as [number, number][][];
    expect(weeklyHoursSummary(en, null)).toBe("");
    // Each language's clock: English 12-hour, French 24-hour.
    expect(weeklyHoursSummary(en, week)).toBe("Mon, Fri 9:00 AM–12:00 PM, 2:00 PM–6:00 PM · Wed 9:00 AM–12:00 PM · Sun 12:00 AM–12:00 AM");
    expect(weeklyHoursSummary(fr, week)).toBe("Lun, Ven 09:00–12:00, 14:00–18:00 · Mer 09:00–12:00 · Dim 00:00–24:00");
  });
});
