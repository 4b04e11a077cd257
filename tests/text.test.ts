import { one } from "../db/client";
/**
 * User text: cleaned the same way in every schema (NFC, trimmed of whitespace and invisible
 * characters), control and bidi override characters refused, wrong types refused rather than
 * coerced; each refusal is a 400 with the field's message and nothing written. (A NUL never
 * reaches a schema: the app refuses it before any route, tests/faults.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, users } from "../db/schema";
import { catalogues, type MessageKey } from "../src/texts";
import { acceptText, cleanText } from "../lib/text";
import { makeTestApp, type Client } from "./helpers";
import { scenarios, shown, type Scenario } from "./scenario";

const en = (key: MessageKey) => catalogues.en[key];

describe("the text cleaner", () => {
  test.each([
    ["\u200b", ""],
    ["\u3164", ""],
    ["\u115f\u1160", ""],
    ["\u2060\ufeff\u00ad\u200c\u200d\u200e\u200f\u2800\ufe0f\u034f", ""],
    ["  \u200b Jane \ufeff\n", "Jane"],
    ["Jose\u0301", "Jos\u00e9"],
    ["\u202eBob", "Bob"],
    ["a\u200bb", "a\u200bb"],
    ["\u{1F469}\u200d\u{1F4BB}", "\u{1F469}\u200d\u{1F4BB}"],
  ])("%j becomes %j", (input, output) => {
    expect(cleanText(input)).toBe(output);
  });

  test("multi-line text keeps line breaks (as \\n) and tabs, and nothing else of C0/C1", () => {
    expect(acceptText("\u200b\r\nLine 1\r\nLine 2\tend\rLine 3\u2028Line 4\n\u00ad", "multiline")).toBe("Line 1\nLine 2\tend\nLine 3\nLine 4");
    for (const bad of ["a\u0000b", "a\u0007b", "a\u001bb", "a\u007fb", "a\u0085b", "a\u009bb"]) expect(acceptText(bad, "multiline")).toBeNull();
  });

  test("single-line text refuses every control character, line separators and bidi overrides", () => {
    for (const bad of ["a\u0000b", "a\tb", "a\nb", "a\u007fb", "a\u0085b", "a\u2028b", ...["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"].map((c) => `a${c}b`)]) {
      expect(acceptText(bad)).toBeNull();
    }
    expect(acceptText("Caf\u00e9 \u00ab R&D \u00bb \u05e9\u05dc\u05d5\u05dd \u200fok")).toBe("Caf\u00e9 \u00ab R&D \u00bb \u05e9\u05dc\u05d5\u05dd \u200fok");
  });
});

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let hostId: string;
let activityId: string;
beforeAll(async () => {
  t = await makeTestApp();
  host = t.client();
  hostId = (await host.signUpComplete({ username: "texthost", firstName: "Jane", lastName: "Doe", city: "Paris", country: "France", bio: "Hello", interests: ["Chess"] })).user.id;
  const res = await host.postJson("/api/activities", { title: "Tennis", description: "Forehand.", category: "sports", hourlyRate: "40", hasMeetingPoint: true, meetingPoint: "Court 3" });
  activityId = ((await res.json()) as { id: string }).id;
});
afterAll(() => t.cleanup());

const userRow = async () => (await one(t.db.select().from(users).where(eq(users.id, hostId))))!;
const activityRows = () => t.db.select().from(activities).orderBy(activities.id);
type Errors = { message: string; fields: Record<string, string> };

describe("PUT /api/user/profile", () => {
  const refusals: [Record<string, unknown>, string, MessageKey][] = [
    [{ firstName: "\u200b" }, "firstName", "profile.firstNameRequired"],
    [{ firstName: "\u3164" }, "firstName", "profile.firstNameRequired"],
    [{ firstName: "\u115f" }, "firstName", "profile.firstNameRequired"],
    [{ lastName: "\u2060\ufeff\u00ad" }, "lastName", "profile.lastNameRequired"],
    [{ firstName: "Bob\u0007" }, "firstName", "profile.firstNameCharacters"],
    [{ firstName: "Bo\u202eb" }, "firstName", "profile.firstNameCharacters"],
    [{ lastName: "x\u2066y" }, "lastName", "profile.lastNameCharacters"],
    [{ firstName: "Bob\tby" }, "firstName", "profile.firstNameCharacters"],
    [{ firstName: 5 }, "firstName", "profile.firstNameRequired"],
    [{ firstName: true }, "firstName", "profile.firstNameRequired"],
    [{ lastName: ["Doe"] }, "lastName", "profile.lastNameRequired"],
    [{ name: 5 }, "name", "profile.firstNameRequired"],
    [{ name: "\u200b\u3164" }, "firstName", "profile.firstNameRequired"],
    [{ username: "\u200b" }, "username", "profile.usernameRequired"],
    [{ username: "jane\u0007x" }, "username", "profile.usernameCharacters"],
    [{ username: 5 }, "username", "profile.usernameRequired"],
    [{ dateOfBirth: true }, "dateOfBirth", "profile.birthdayRequired"],
    [{ bio: "hi\u0007" }, "bio", "profile.bioCharacters"],
    [{ bio: "hi\u0085there" }, "bio", "profile.bioCharacters"],
    [{ bio: 5 }, "bio", "profile.bioInvalid"],
    [{ bio: { text: "hi" } }, "bio", "profile.bioInvalid"],
    [{ interests: ["Chess", "b\u202ead"] }, "interests", "profile.interestsCharacters"],
    [{ interests: 5 }, "interests", "profile.interestsInvalid"],
    [{ interests: [5] }, "interests", "profile.interestsInvalid"],
    [{ about: { work: "x\u0007" } }, "about", "profile.aboutTextCharacters"],
    [{ about: { work: "a\u202eb" } }, "about", "profile.aboutTextCharacters"],
    [{ about: { work: 5 } }, "about", "profile.aboutTextInvalid"],
    [{ about: 5 }, "about", "profile.aboutInvalid"],
    [{ aboutVisibility: 5 }, "aboutVisibility", "profile.aboutInvalid"],
    [{ photo: 123 }, "photos", "profile.photosInvalid"],
    [{ photos: "x" }, "photos", "profile.photosInvalid"],
    [{ photos: [5] }, "photos", "profile.photosInvalid"],
    [{ photos: 5 }, "photos", "profile.photosInvalid"],
    [{ country: 5, city: "Paris" }, "city", "profile.locationRequired"],
  ];
  scenarios(
    () => t,
    refusals.map(([change, field, key]): Scenario => ({
      name: `${shown(change)} is refused with 400 and the field's message; nothing changes`,
      as: () => host,
      method: "PUT",
      url: "/api/user/profile",
      body: change,
      status: 400,
      json: { fields: { [field]: en(key) } },
      unchanged: userRow,
    })),
  );

  test("the French message for characters that are not allowed", async () => {
    const res = await host.request("/api/user/profile", { method: "PUT", json: { firstName: "Bo\u202eb" }, headers: { "accept-language": "fr" } });
    expect(((await res.json()) as Errors).fields.firstName).toBe(catalogues.fr["profile.firstNameCharacters"]);
  });

  test("good values lose the invisible characters around them", async () => {
    const res = await host.putJson("/api/user/profile", {
      firstName: "\u200b Jose\u0301 \ufeff",
      lastName: "\u3164Doe\u2060",
      username: "\u200bJane.Doe2\u200b",
      bio: "\u200b\r\nHello\r\nworld\t!\n\u00ad",
      interests: ["\u200bChess\u200b", " ", "\u3164", "Tennis\u00ad"],
      about: { work: "\ufeffOffline\u200b", school: "\u200b" },
    });
    expect(res.status).toBe(200);
    const row = await userRow();
    expect([row.firstName, row.lastName, row.name, row.username, row.bio]).toEqual(["Jos\u00e9", "Doe", "Jos\u00e9 Doe", "jane.doe2", "Hello\nworld\t!"]);
    expect(row.interests).toEqual(["Chess", "Tennis"]);
    expect(JSON.parse(row.about!)).toEqual({ work: "Offline" });
  });

  test("the name given whole is cleaned before it is split", async () => {
    expect((await host.putJson("/api/user/profile", { name: "\u200bAnn  Marie Smith\u2060" })).status).toBe(200);
    const row = await userRow();
    expect([row.firstName, row.lastName]).toEqual(["Ann", "Marie Smith"]);
  });
});

describe("activities: POST /api/activities and PATCH /api/activities/:id", () => {
  const valid = { title: "Tennis", description: "Forehand.", category: "sports", hourlyRate: "40" };
  const table: [Record<string, unknown>, string, MessageKey][] = [
    [{ title: "\u200b" }, "title", "activity.titleRequired"],
    [{ title: "\u3164" }, "title", "activity.titleRequired"],
    [{ title: "\u115f\u1160\u2060" }, "title", "activity.titleRequired"],
    [{ title: "Hi\u0007" }, "title", "activity.titleCharacters"],
    [{ title: "H\u202ei" }, "title", "activity.titleCharacters"],
    [{ title: "H\u2067i" }, "title", "activity.titleCharacters"],
    [{ title: "Two\nlines" }, "title", "activity.titleCharacters"],
    [{ title: 5 }, "title", "activity.titleRequired"],
    [{ title: true }, "title", "activity.titleRequired"],
    [{ description: "\u200b\u2060\ufeff" }, "description", "activity.descriptionRequired"],
    [{ description: "a\u0007b" }, "description", "activity.descriptionCharacters"],
    [{ description: "a\u001bb" }, "description", "activity.descriptionCharacters"],
    [{ description: ["a"] }, "description", "activity.descriptionRequired"],
    [{ hasMeetingPoint: true, meetingPoint: "\u200b" }, "meetingPoint", "activity.meetingPointRequired"],
    [{ hasMeetingPoint: true, meetingPoint: "Park\u0007" }, "meetingPoint", "activity.meetingPointCharacters"],
    [{ hasMeetingPoint: true, meetingPoint: "Pa\u202erk" }, "meetingPoint", "activity.meetingPointCharacters"],
    [{ hasMeetingPoint: true, meetingPoint: 5 }, "meetingPoint", "activity.meetingPointInvalid"],
    [{ meetingPoint: { street: "x" } }, "meetingPoint", "activity.meetingPointInvalid"],
    [{ hasMeetingPoint: 5, meetingPoint: "Park" }, "meetingPoint", "activity.meetingPointRequired"],
    [{ duration: true }, "duration", "activity.durationInvalid"],
    [{ duration: [2] }, "duration", "activity.durationInvalid"],
    [{ duration: {} }, "duration", "activity.durationInvalid"],
    [{ minDurationMinutes: "0x3C" }, "duration", "activity.durationInvalid"],
    [{ minDurationMinutes: "6e1" }, "duration", "activity.durationInvalid"],
    [{ maxDuration: true }, "maxDuration", "activity.maxDurationInvalid"],
    [{ hourlyRate: [] }, "hourlyRate", "activity.rateInvalid"],
    [{ hourlyRate: true }, "hourlyRate", "activity.rateInvalid"],
    [{ hourlyRate: { amount: 40 } }, "hourlyRate", "activity.rateInvalid"],
    [{ photos: "x" }, "photos", "activity.photosInvalid"],
    [{ photos: [5] }, "photos", "activity.photosInvalid"],
    [{ photos: 5 }, "photos", "activity.photosInvalid"],
    [{ category: 5 }, "category", "activity.categoryRequired"],
    [{ city: 5 }, "city", "activity.placeInvalid"],
  ];

  scenarios(
    () => t,
    table.map(([change, field, key]): Scenario => ({
      name: `POST ${shown(change)} is refused with 400 and the field's message; nothing is written`,
      as: () => host,
      method: "POST",
      url: "/api/activities",
      body: { ...valid, ...change },
      status: 400,
      json: { fields: { [field]: en(key) } },
      unchanged: activityRows,
    })),
  );

  scenarios(
    () => t,
    table.map(([change, field, key]): Scenario => ({
      name: `PATCH ${shown(change)} is refused with 400 and the field's message; nothing changes`,
      as: () => host,
      method: "PATCH",
      url: () => `/api/activities/${activityId}`,
      body: change,
      status: 400,
      json: { fields: { [field]: en(key) } },
      unchanged: activityRows,
    })),
  );

  const cleaned = {
    title: "\u200b Tennis \u2060",
    description: "\ufeffLine 1\r\nLine 2\t!\u200b",
    hasMeetingPoint: true,
    meetingPoint: "\u00adCourt\u00a03\u200b",
  };
  const expectCleaned = (row: typeof activities.$inferSelect) =>
    expect([row.title, row.description, row.meetingPoint]).toEqual(["Tennis", "Line 1\nLine 2\t!", "Court\u00a03"]);

  test("POST: good values lose the invisible characters around them", async () => {
    const res = await host.postJson("/api/activities", { ...valid, ...cleaned });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { id: string }).id;
    expectCleaned((await one(t.db.select().from(activities).where(eq(activities.id, id))))!);
  });

  test("PATCH: good values lose the invisible characters around them", async () => {
    const res = await host.request(`/api/activities/${activityId}`, { method: "PATCH", json: cleaned });
    expect(res.status).toBe(200);
    expectCleaned((await one(t.db.select().from(activities).where(eq(activities.id, activityId))))!);
  });

  test("a meeting point of invisible characters alone, without the switch, is 'share later'", async () => {
    const res = await host.request(`/api/activities/${activityId}`, { method: "PATCH", json: { meetingPoint: "\u200b\u2060" } });
    expect(res.status).toBe(200);
    expect((await one(t.db.select().from(activities).where(eq(activities.id, activityId))))).toMatchObject({ hasMeetingPoint: false, meetingPoint: null });
  });
});
