import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { writeTransaction } from "../db/client";
import { activities, savedActivities } from "../db/schema";
import { activityRow, insert, userRow } from "../src/demo/factories";
import { MAX_SAVED } from "../src/saved/rules";
import { activityPagePath, isSavedChange, savedChangeOf, savedIdsIn } from "../islands/worker/rules";
import { makeTestApp, type Client } from "./helpers";
import { scenarios } from "./scenario";

/**
 * Saved activities (docs/decisions/0055): the heart's form, the Saved page and the Saved API,
 * as a guest and the service worker use them. The browser's side (offline) is in
 * tests/e2e/saved.e2e.ts.
 */
let t: Awaited<ReturnType<typeof makeTestApp>>;
/** The clock the app reads: moved on between saves, so "newest first" has an order to show. */
let clock = Date.UTC(2026, 10, 2, 12);
const tick = () => (clock += 1000);
let host: { id: string };
let ana: Client;
let ben: Client;
let anaId: string;

async function person() {
  const row = await insert(t.db).user(userRow());
  const client = t.client();
  await client.signInAs(row.id);
  return { client, id: row.id };
}

async function activity(title: string, overrides: Parameters<typeof activityRow>[1] = {}) {
  return insert(t.db).activity(activityRow(host, { title, createdAt: clock, updatedAt: clock, ...overrides }, clock));
}

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;
const list = async (c: Client) => (await (await c.get("/api/saved")).json()) as { activityId: string; title: string; savedAt: string; available: boolean; activity?: { id: string; title: string } }[];
/** The heart for an activity in a page: whether it is pressed, what it is called, and the CSRF token of the page's hearts form. */
function heartOf(html: string, activityId: string) {
  const button = new RegExp(`<button type="submit" form="hearts" formaction="/saved/${activityId}" name="save" value="([01])" aria-pressed="(true|false)" aria-label="([^"]*)"`).exec(html);
  if (!button) return null;
  // The next press asks for the other state.
  expect(button[1]).toBe(button[2] === "true" ? "0" : "1");
  const form = /<form id="hearts" method="post" action="\/saved"[^>]*><input type="hidden" name="_csrf" value="([^"]*)"\/>/.exec(html);
  return { pressed: button[2] === "true", label: button[3], csrf: form?.[1] };
}

beforeAll(async () => {
  t = await makeTestApp({ now: () => clock });
  host = await insert(t.db).user(userRow({ firstName: "Hana" }));
  ({ client: ana, id: anaId } = await person());
  ({ client: ben } = await person());
});
afterAll(() => t.cleanup());

describe("the Saved API", () => {
  test("PUT saves once (201, then 200), GET says so, DELETE unsaves (also twice), then GET is 404", async () => {
    const tennis = await activity("Tennis at dawn");
    tick();
    const first = await ana.request(`/api/saved/${tennis.id}`, { method: "PUT" });
    expect(first.status).toBe(201);
    expect(await json(first)).toEqual({ activityId: tennis.id, saved: true });
    const again = await ana.request(`/api/saved/${tennis.id}`, { method: "PUT" });
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({ activityId: tennis.id, saved: true });
    const one = await ana.get(`/api/saved/${tennis.id}`);
    expect(one.status).toBe(200);
    expect(await json(one)).toEqual({ activityId: tennis.id, saved: true, savedAt: new Date(clock).toISOString() });
    expect((await list(ana)).filter((s) => s.activityId === tennis.id)).toHaveLength(1);

    for (let i = 0; i < 2; i++) {
      const gone = await ana.request(`/api/saved/${tennis.id}`, { method: "DELETE" });
      expect(gone.status).toBe(200);
      expect(await json(gone)).toEqual({ activityId: tennis.id, saved: false });
    }
    const after = await ana.get(`/api/saved/${tennis.id}`);
    expect(after.status).toBe(404);
    expect(await json(after)).toEqual({ message: "This activity is not in your Saved list." });
  });

  test("the list is newest first, each with the activity's JSON", async () => {
    const c = await person();
    const made = [];
    for (const title of ["Pottery", "Climbing", "Jazz walk"]) {
      const a = await activity(title);
      tick();
      expect((await c.client.request(`/api/saved/${a.id}`, { method: "PUT" })).status).toBe(201);
      made.push(a);
    }
    const saved = await list(c.client);
    expect(saved.map((s) => s.title)).toEqual(["Jazz walk", "Climbing", "Pottery"]);
    expect(saved[0]).toMatchObject({ activityId: made[2]!.id, available: true, activity: { id: made[2]!.id, title: "Jazz walk", hourlyRate: "40.00", currency: "usd" } });
    expect(saved[0]!.savedAt).toBe(new Date(clock).toISOString());
  });

  test("a deleted, archived, hidden or unlisted activity stays in the list, named as saved, and says it is no longer available", async () => {
    const c = await person();
    const names = ["Deleted one", "Archived one", "Hidden one", "Unlisted one", "Still here"];
    const rows = [];
    for (const title of names) {
      const a = await activity(title);
      tick();
      expect((await c.client.request(`/api/saved/${a.id}`, { method: "PUT" })).status).toBe(201);
      rows.push(a);
    }
    const [deleted, archived, hidden, unlisted, still] = rows as [typeof rows[0], typeof rows[0], typeof rows[0], typeof rows[0], typeof rows[0]];
    await writeTransaction(t.db, async (tx) => {
      await tx.delete(activities).where(eq(activities.id, deleted.id));
      await tx.update(activities).set({ archivedAt: clock }).where(eq(activities.id, archived.id));
      await tx.update(activities).set({ hiddenAt: clock }).where(eq(activities.id, hidden.id));
      await tx.update(activities).set({ active: false }).where(eq(activities.id, unlisted.id));
      // Renamed since: the list names it as it is now while it is listed.
      await tx.update(activities).set({ title: "Still here, renamed" }).where(eq(activities.id, still.id));
    });

    const saved = await list(c.client);
    expect(saved.map((s) => [s.title, s.available])).toEqual([
      ["Still here, renamed", true],
      ["Unlisted one", false],
      ["Hidden one", false],
      ["Archived one", false],
      ["Deleted one", false],
    ]);
    for (const gone of saved.slice(1)) expect(Object.keys(gone).sort()).toEqual(["activityId", "available", "savedAt", "title"]);

    const page = await c.client.get("/saved");
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const title of names.slice(0, 4)) expect(html).toContain(`${title} is no longer available`);
    expect(html).toContain("Still here, renamed");
    expect(html).toContain(`href="/activity/${still.id}"`);
    for (const gone of [deleted, archived, hidden, unlisted]) expect(html).not.toContain(`href="/activity/${gone.id}"`);
    // The service worker keeps the pages of the available ones only.
    expect(savedIdsIn(html)).toEqual([still.id]);

    // Gone ones can be taken out of the list; saving one again is refused.
    expect((await c.client.postForm(`/saved/${deleted.id}`, { save: "0", back: "/saved" })).status).toBe(303);
    expect((await list(c.client)).map((s) => s.activityId)).not.toContain(deleted.id);
    expect((await c.client.request(`/api/saved/${archived.id}`, { method: "PUT" })).status).toBe(404);
  });

  test("one person's saves are never another's: not in their list, not found by id, not on their hearts", async () => {
    const secret = await activity("Ana's secret picnic");
    tick();
    expect((await ana.request(`/api/saved/${secret.id}`, { method: "PUT" })).status).toBe(201);
    expect((await list(ben)).map((s) => s.activityId)).not.toContain(secret.id);
    expect((await ben.get(`/api/saved/${secret.id}`)).status).toBe(404);
    expect(await (await ben.get("/saved")).text()).not.toContain("secret picnic");
    // Ben unsaving it changes nothing of Ana's.
    expect((await ben.request(`/api/saved/${secret.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await ana.get(`/api/saved/${secret.id}`)).status).toBe(200);

    // The kept browse body and activity page, asked for in turn: each sees their own heart, with their own token.
    for (const [who, me, pressed] of [
      ["ben", ben, false],
      ["ana", ana, true],
      ["ben", ben, false],
      ["ana", ana, true],
    ] as const) {
      for (const path of ["/browse?city=New%20York", "/browse?city=New%20York&sort=price&people=2", `/activity/${secret.id}`]) {
        // The page, and the parts htmx swaps: the body on a city's change, the results on a "when" filter's.
        const swaps = [{}, { "hx-request": "true", "hx-target": "browse" }, { "hx-request": "true", "hx-target": "results" }];
        for (const headers of (path.startsWith("/browse") ? swaps : [{}]) as Record<string, string>[]) {
          const html = await (await me.get(path, headers)).text();
          const heart = heartOf(html, secret.id);
          // The browse body htmx swaps has the hearts; the page's hearts form, with the token, stays outside it.
          const csrf = "hx-request" in headers ? undefined : me.csrf;
          expect({ who, path, headers, heart }).toEqual({ who, path, headers, heart: { pressed, label: pressed ? "Saved" : "Save Ana&#x27;s secret picnic", csrf } });
        }
      }
    }
    // The service worker is told to keep Ana's page of it, not Ben's.
    expect((await ana.get(`/activity/${secret.id}`)).headers.get("x-offline-keep")).toBe("saved");
    expect((await ben.get(`/activity/${secret.id}`)).headers.get("x-offline-keep")).toBeNull();
  });
});

describe("the heart's form", () => {
  test("without JavaScript: saves and unsaves, then goes back to the page it was on", async () => {
    const walk = await activity("Harbour walk");
    const back = `/activity/${walk.id}`;
    tick();
    const saved = await ana.postForm(`/saved/${walk.id}`, { save: "1", back });
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(back);
    const page = await (await ana.get(back)).text();
    expect(page).toContain("Find it again under Saved.");
    expect(heartOf(page, walk.id)).toMatchObject({ pressed: true, label: "Saved" });
    // Pressed twice (a double tap): still saved, once.
    expect((await ana.postForm(`/saved/${walk.id}`, { save: "1", back })).status).toBe(303);
    expect((await list(ana)).filter((s) => s.activityId === walk.id)).toHaveLength(1);

    const removed = await ana.postForm(`/saved/${walk.id}`, { save: "0", back: "/saved" });
    expect(removed.status).toBe(303);
    expect(removed.headers.get("location")).toBe("/saved");
    expect(heartOf(await (await ana.get(back)).text(), walk.id)).toMatchObject({ pressed: false, label: "Save Harbour walk" });
    // A way back to another site is not taken.
    const elsewhere = await ana.postForm(`/saved/${walk.id}`, { save: "1", back: "https://evil.example/" });
    expect(elsewhere.headers.get("location")).toBe("/saved");
  });

  test("with htmx: answers just the heart, pressed or not, in place of the one pressed, never kept", async () => {
    const yoga = await activity("Rooftop yoga");
    tick();
    const res = await ana.postForm(`/saved/${yoga.id}`, { save: "1", back: "/browse?city=New%20York" }, { "hx-request": "true" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("hx-retarget")).toBe(`button[formaction="/saved/${yoga.id}"]`);
    expect(res.headers.get("hx-reswap")).toBe("outerHTML");
    const html = await res.text();
    expect(html).toStartWith(`<button type="submit" form="hearts" formaction="/saved/${yoga.id}"`);
    expect(heartOf(html, yoga.id)).toEqual({ pressed: true, label: "Saved", csrf: undefined });
    // A pressed heart keeps its other name, for the page script to flip it back offline.
    expect(html).toContain('data-save-label="Save Rooftop yoga"');
    const off = await (await ana.postForm(`/saved/${yoga.id}`, { save: "0", back: "/saved" }, { "hx-request": "true" })).text();
    expect(heartOf(off, yoga.id)).toEqual({ pressed: false, label: "Save Rooftop yoga", csrf: undefined });
  });

  test("without a way back in the form, goes back to the page it came from", async () => {
    const a = await activity("Referred");
    const res = await ana.postForm(`/saved/${a.id}`, { save: "1" }, { referer: "http://localhost/browse?city=New%20York&category=sports" });
    expect(res.headers.get("location")).toBe("/browse?city=New%20York&category=sports");
    const other = await ana.postForm(`/saved/${a.id}`, { save: "0" }, { referer: "https://evil.example/x" });
    expect(other.headers.get("location")).toBe("/saved");
  });

  test("in French", async () => {
    const cours = await activity("Cours de cuisine");
    tick();
    const html = await (await ana.postForm(`/saved/${cours.id}`, { save: "1", back: "/saved" }, { "hx-request": "true", "accept-language": "fr" })).text();
    expect(heartOf(html, cours.id)?.label).toBe("Dans vos favoris");
    const page = await (await ana.get("/saved", { "accept-language": "fr" })).text();
    expect(page).toContain("<title>Favoris · ");
    expect(heartOf(await (await ben.get(`/activity/${cours.id}`, { "accept-language": "fr" })).text(), cours.id)?.label).toBe("Ajouter Cours de cuisine aux favoris");
  });
});

describe("who may call what, with what", () => {
  const fixtures = {} as { listed: { id: string }; archived: { id: string } };
  beforeAll(async () => {
    fixtures.listed = await activity("Listed for the table");
    fixtures.archived = await activity("Archived for the table", { archivedAt: clock });
  });
  const saves = (f: typeof fixtures) => t.db.select().from(savedActivities).where(eq(savedActivities.activityId, f.listed.id));
  const notFound = { message: "This activity is not available." };
  scenarios(() => ({ app: t, callers: { ana }, fixtures }), [
    { name: "a visitor's list is 401", url: "/api/saved", status: 401, json: { message: "Please sign in to continue." } },
    { name: "a visitor's save is 401", method: "PUT", url: (f) => `/api/saved/${f.listed.id}`, status: 401, unchanged: saves },
    { name: "a visitor's unsave is 401", method: "DELETE", url: (f) => `/api/saved/${f.listed.id}`, status: 401 },
    { name: "a visitor's look-up is 401", url: (f) => `/api/saved/${f.listed.id}`, status: 401 },
    { name: "a visitor's heart goes to sign in", method: "POST", url: (f) => `/saved/${f.listed.id}`, form: (f) => ({ save: "1", back: `/activity/${f.listed.id}` }), status: 303, unchanged: saves },
    { name: "an id that is no id is 404", as: "ana", method: "PUT", url: "/api/saved/not-an-id", status: 404, json: notFound },
    { name: "an unknown activity is 404", as: "ana", method: "PUT", url: `/api/saved/${crypto.randomUUID()}`, status: 404, json: notFound },
    { name: "an archived activity is 404", as: "ana", method: "PUT", url: (f) => `/api/saved/${f.archived.id}`, status: 404, json: notFound },
    { name: "a write without the CSRF token is 403", as: "ana", method: "PUT", url: (f) => `/api/saved/${f.listed.id}`, csrf: false, status: 403, unchanged: saves },
    { name: "a form without save or remove is 400", as: "ana", method: "POST", url: (f) => `/saved/${f.listed.id}`, form: { save: "maybe" }, headers: { accept: "application/json" }, status: 400, json: { message: "Say whether to save or remove the activity." }, unchanged: saves },
    { name: "unsaving what was never saved is no change", as: "ana", method: "DELETE", url: (f) => `/api/saved/${f.listed.id}`, status: 200, json: (f) => ({ activityId: f.listed.id, saved: false }), unchanged: saves },
  ]);
});

describe("refusals", () => {
  test("an id that is no listed activity is not found, and nothing is saved", async () => {
    const archived = await activity("Archived before saving", { archivedAt: clock });
    for (const id of ["not-an-id", crypto.randomUUID(), archived.id, "%00", "'; DROP TABLE saved_activities; --"]) {
      const path = `/api/saved/${encodeURIComponent(id)}`;
      const put = await ana.request(path, { method: "PUT" });
      expect({ id, status: put.status }).toEqual({ id, status: 404 });
      expect(await json(put)).toEqual({ message: "This activity is not available." });
      expect((await ana.get(path)).status).toBe(404);
      expect((await ana.request(path, { method: "DELETE" })).status).toBe(200);
    }
    // The form goes back with the refusal as a toast.
    const form = await ana.postForm(`/saved/${crypto.randomUUID()}`, { save: "1", back: "/saved" });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/saved");
    expect(await (await ana.get("/saved")).text()).toContain("This activity is not available.");
    expect(await (await t.db.select().from(savedActivities).where(eq(savedActivities.activityId, archived.id)))).toHaveLength(0);
  });

  test("a form that does not say save or remove is refused, and changes nothing", async () => {
    const a = await activity("Undecided");
    const res = await ana.postForm(`/saved/${a.id}`, { save: "maybe", back: `/activity/${a.id}` }, { accept: "application/json" });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toBe("Say whether to save or remove the activity.");
    expect((await ana.get(`/api/saved/${a.id}`)).status).toBe(404);
  });

  test("signed out: the API is 401, the page asks to sign in, the heart sends to sign-in and back", async () => {
    const a = await activity("For visitors");
    const visitor = t.client();
    expect((await visitor.get("/api/saved")).status).toBe(401);
    for (const method of ["PUT", "DELETE"]) expect((await visitor.request(`/api/saved/${a.id}`, { method })).status).toBe(401);
    expect((await visitor.get(`/api/saved/${a.id}`)).status).toBe(401);
    const page = await visitor.get("/saved");
    expect(await page.text()).toContain('name="next" value="/saved"');
    const heart = await visitor.postForm(`/saved/${a.id}`, { save: "1", back: `/activity/${a.id}` });
    expect(heart.status).toBe(303);
    expect(heart.headers.get("location")).toBe(`/api/login?next=${encodeURIComponent(`/activity/${a.id}`)}`);
    expect(await t.db.select().from(savedActivities).where(eq(savedActivities.activityId, a.id))).toHaveLength(0);
  });

  test("a signed-in write without its CSRF token, or from another site, is refused", async () => {
    const a = await activity("Guarded");
    expect((await ana.request(`/api/saved/${a.id}`, { method: "PUT", csrf: false })).status).toBe(403);
    expect((await ana.request(`/saved/${a.id}`, { method: "POST", form: { save: "1", back: "/saved" }, csrf: false })).status).toBe(403);
    expect((await ana.request(`/api/saved/${a.id}`, { method: "PUT", headers: { origin: "https://evil.example" } })).status).toBe(403);
    expect((await ana.get(`/api/saved/${a.id}`)).status).toBe(404);
  });

  test(`at ${MAX_SAVED} saved activities a further one is refused with a clear message; saved ones stay saved`, async () => {
    const c = await person();
    const first = await activity("Kept first");
    tick();
    expect((await c.client.request(`/api/saved/${first.id}`, { method: "PUT" })).status).toBe(201);
    await writeTransaction(t.db, (tx) =>
      tx.insert(savedActivities).values(Array.from({ length: MAX_SAVED - 1 }, (_, i) => ({ userId: c.id, activityId: crypto.randomUUID(), title: `Old ${i}`, createdAt: clock - 10_000 - i }))),
    );
    const one = await activity("One too many");
    const refused = await c.client.request(`/api/saved/${one.id}`, { method: "PUT" });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toEqual({ message: `You can keep up to ${MAX_SAVED} saved activities. Remove some to save more.` });
    const form = await c.client.postForm(`/saved/${one.id}`, { save: "1", back: `/activity/${one.id}` });
    expect(form.status).toBe(303);
    expect(await (await c.client.get(`/activity/${one.id}`)).text()).toContain("Your Saved list is full. Remove some activities to save more.");
    // Saving one already saved is no new one: not refused.
    expect((await c.client.request(`/api/saved/${first.id}`, { method: "PUT" })).status).toBe(200);
    expect(await t.db.select().from(savedActivities).where(eq(savedActivities.userId, c.id))).toHaveLength(MAX_SAVED);
    // Removing one makes room.
    expect((await c.client.request(`/api/saved/${first.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await c.client.request(`/api/saved/${one.id}`, { method: "PUT" })).status).toBe(201);
    expect(await t.db.select().from(savedActivities).where(and(eq(savedActivities.userId, c.id), eq(savedActivities.activityId, one.id)))).toHaveLength(1);
  });
});

describe("the menu and the service worker", () => {
  test("the menu has a Saved tab, current on the Saved page; the page is empty with a way to browse", async () => {
    const c = await person();
    const html = await (await c.client.get("/saved")).text();
    expect(html).toContain('<a href="/saved" class="nav-tab nav-tab-current" aria-current="page">');
    expect(html).toContain("Nothing saved yet");
    expect(html).toContain('href="/"');
    expect(await (await c.client.get("/bookings")).text()).toContain('<a href="/saved" class="nav-tab ">');
  });

  test("the worker queues heart forms and Saved API writes, and nothing else", () => {
    const id = "7b0c6f0e-2b61-4c47-9a38-2f7b2f0c1d11";
    expect(savedChangeOf("POST", `/saved/${id}`, "_csrf=tok&save=1&back=%2Fbrowse%3Fcity%3DParis", null)).toEqual({ activityId: id, save: true, csrf: "tok", back: "/browse?city=Paris" });
    expect(savedChangeOf("POST", `/saved/${id}`, "_csrf=tok&save=0&back=%2F%2Fevil.example", "header")).toEqual({ activityId: id, save: false, csrf: "header", back: null });
    expect(savedChangeOf("PUT", `/api/saved/${id}`, "", "tok")).toEqual({ activityId: id, save: true, csrf: "tok", back: null });
    expect(savedChangeOf("DELETE", `/api/saved/${id}`, "", "tok")).toEqual({ activityId: id, save: false, csrf: "tok", back: null });
    expect(savedChangeOf("POST", `/saved/${id}`, "save=maybe", null)).toBeNull();
    for (const [method, path] of [["GET", `/saved/${id}`], ["POST", "/saved"], ["POST", `/api/saved/${id}`], ["PUT", "/api/saved/x"], ["POST", `/bookings/${id}`]] as const) {
      expect({ method, path, queued: isSavedChange(method, path) }).toEqual({ method, path, queued: false });
    }
    expect(activityPagePath(id)).toBe(`/activity/${id}`);
    expect(anaId).toBeTruthy();
  });
});
