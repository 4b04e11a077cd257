import { one } from "../db/client";
/**
 * Text that looks like HTML comes back exactly as typed: saved through the API, shown in an edit
 * screen (read as a browser reads it: attributes and island props decoded), and posted back
 * unchanged by the screen's form or island.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { activities, users } from "../db/schema";
import { jsx } from "../lib/html/jsx-runtime";
import { parseAbout } from "../src/profiles/about";
import { makeTestApp, type Client } from "./helpers";
import { fieldValue, formData, islandProps, select } from "./html";

const TRICKY = [
  "Central Park&quot;,&quot;injected&quot;:&quot;by-host",
  "Central Park&quot;}",
  "R&amp;D",
  "Tom &lt;3",
  `a"b'c<d>e&f`,
  "&#39;quoted&#39; &copy; &",
];
/** The values a field of that length limit can hold (and, for comma lists, without commas). */
const fitting = (max: number, list = false) => TRICKY.filter((v) => v.length <= max && !(list && v.includes(",")));

let t: Awaited<ReturnType<typeof makeTestApp>>;
let host: Client;
let viewer: Client;
let hostId: string;
beforeAll(async () => {
  t = await makeTestApp();
  host = t.client();
  hostId = (await host.signUpComplete({ username: "escapehost", city: "Paris", country: "France" })).user.id;
  viewer = t.client();
  await viewer.signUpComplete({ username: "escapeviewer" });
});
afterAll(() => t.cleanup());

const userRow = async () => (await one(t.db.select().from(users).where(eq(users.id, hostId))))!;

describe("the server's JSX escapes every attribute value", () => {
  test("&, <, >, \" and ' in any attribute decode back to the string given", () => {
    for (const value of TRICKY) {
      const html = String(jsx("input", { title: value, "data-x": value, class: ["a", value], value }));
      const [input] = select(`<form>${html}</form>`, "input");
      expect(input!.attributes).toMatchObject({ title: value, "data-x": value, value, class: `a ${value}` });
    }
  });
});

describe("profile screens", () => {
  test.each(TRICKY)("edit profile: bio, interests and about keep %p through save, edit and save again", async (value) => {
    const interests = fitting(30, true).includes(value) ? [value] : ["Tennis"];
    const res = await host.putJson("/api/user/profile", { bio: value, interests, about: { work: value, school: value, height: "180 cm" } });
    expect(res.status).toBe(200);

    const html = await (await host.get("/edit-profile")).text();
    expect(fieldValue(html, "bio")).toBe(value);
    expect(fieldValue(html, "interests")).toBe(interests.join(", "));
    expect(fieldValue(html, "about_work")).toBe(value);
    expect(fieldValue(html, "about_school")).toBe(value);
    expect(islandProps(html, "PhotoGrid").photos).toEqual((await userRow()).photos);

    const form = formData(html, "form#edit-profile");
    expect(form.bio).toBe(value);
    const before = await userRow();
    const saved = await host.postForm("/edit-profile", form);
    expect(saved.status).toBe(303);
    const after = await userRow();
    expect(after.bio).toBe(value);
    expect(after.interests).toEqual(interests);
    expect(parseAbout(after.about)).toMatchObject({ work: value, school: value, height: "180 cm" });
    // The form always sends every visibility switch: "all shown" is then written out in full.
    expect({ ...after, updatedAt: 0, aboutVisibility: null }).toEqual({ ...before, updatedAt: 0, aboutVisibility: null });
  });

  test.each(fitting(50))("settings name and first name keep %p through save, edit and save again", async (value) => {
    expect((await host.putJson("/api/user/profile", { firstName: value, lastName: value })).status).toBe(200);
    for (const screen of ["name", "first-name"]) {
      const html = await (await host.get(`/settings/${screen}`)).text();
      expect(fieldValue(html, "firstName")).toBe(value);
      if (screen === "name") expect(fieldValue(html, "lastName")).toBe(value);
      const saved = await host.postForm(`/settings/${screen}`, formData(html, `form[action="/settings/${screen}"]`));
      expect(saved.status).toBe(303);
      const row = await userRow();
      expect([row.firstName, row.lastName, row.name]).toEqual([value, value, `${value} ${value}`]);
    }
  });

  test("the username screen shows the stored username as its value", async () => {
    const html = await (await host.get("/settings/username")).text();
    expect(fieldValue(html, "username")).toBe("escapehost");
  });
});

describe("activity screens", () => {
  const create = async (value: string, title = value) => {
    const res = await host.postJson("/api/activities", { title, description: value, category: "sports", hourlyRate: "40", hasMeetingPoint: true, meetingPoint: value });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const row = async (id: string) => (await one(t.db.select().from(activities).where(eq(activities.id, id))))!;

  test.each(TRICKY)("the activity page's map island gets exactly its props for the meeting point %p", async (value) => {
    const id = await create(value, "Tennis");
    const html = await (await viewer.get(`/activity/${id}`)).text();
    const props = islandProps(html, "ActivityMap");
    expect(Object.keys(props).sort()).toEqual(["attribution", "geocoderUrl", "label", "query", "stylesheet", "tileUrl", "zoom"]);
    expect(props.query).toBe(`${value}, Paris, France`);
  });

  test.each(TRICKY)("the edit wizard mounts with %p as written and saves it back unchanged", async (value) => {
    const title = value.length <= 50 ? value : "Tennis";
    const id = await create(value, title);
    const html = await (await host.get(`/edit-activity/${id}`)).text();
    const props = islandProps(html, "ActivityWizard") as { activity: Record<string, unknown> };
    expect(props.activity).toMatchObject({ id, title, description: value, meetingPoint: value, hasMeetingPoint: true });

    // The wizard's save: its props as the body of PATCH.
    const a = props.activity as { title: string; description: string; category: string; hourlyRate: string; photos: string[]; minDurationMinutes: number; hasMeetingPoint: boolean; meetingPoint: string };
    const before = await row(id);
    const res = await host.request(`/api/activities/${id}`, {
      method: "PATCH",
      json: { category: a.category, title: a.title, description: a.description, hourlyRate: a.hourlyRate, photos: a.photos, duration: String(a.minDurationMinutes / 60), maxDuration: null, hasMeetingPoint: a.hasMeetingPoint, meetingPoint: a.meetingPoint },
    });
    expect(res.status).toBe(200);
    expect({ ...(await row(id)), updatedAt: 0 }).toEqual({ ...before, updatedAt: 0 });
  });

  test.each(TRICKY)("the create form shows %p again after an error, and saves it as typed", async (value) => {
    const title = value.length <= 50 ? value : "Tennis";
    const first = await host.postForm("/create-activity", { title, description: value, category: "", hourlyRate: "40", hasMeetingPoint: "true", meetingPoint: value, photos: "[]" });
    expect(first.status).toBe(400);
    const html = await first.text();
    expect(fieldValue(html, "title")).toBe(title);
    expect(fieldValue(html, "description")).toBe(value);
    expect(fieldValue(html, "meetingPoint")).toBe(value);
    expect(islandProps(html, "AddressInput").value).toBe(value);

    const form = formData(html, 'form[action="/create-activity"]');
    expect(form).toMatchObject({ title, description: value, meetingPoint: value, hasMeetingPoint: "true" });
    const ids = async () => new Set((await t.db.select({ id: activities.id }).from(activities)).map((r) => r.id));
    const before = await ids();
    const saved = await host.postForm("/create-activity", { ...form, category: "sports" });
    expect(saved.status).toBe(303);
    const added = [...(await ids())].filter((id) => !before.has(id));
    expect(added).toHaveLength(1);
    const created = await row(added[0]!);
    expect([created.title, created.description, created.meetingPoint]).toEqual([title, value, value]);
  });
});
