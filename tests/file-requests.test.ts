import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sessions } from "../db/schema";
import { makeTestApp, type Client } from "./helpers";

/** Files and probes are answered without reading the session; everything else still reads it. */
let now = Date.now();
let t: Awaited<ReturnType<typeof makeTestApp>>;
let person: Client;
beforeAll(async () => {
  t = await makeTestApp({ now: () => now });
  person = t.client();
  await person.signUpComplete();
  // Past half its life, a session read by a request is extended and its cookie sent again.
  now += 20 * 24 * 60 * 60 * 1000;
});
afterAll(() => t.cleanup());

const expiry = async () => (await t.db.select({ expire: sessions.expire }).from(sessions)).map((s) => s.expire);
const renewsCookie = (res: Response) => res.headers.getSetCookie().some((c) => c.startsWith("sid="));
/** Moves the clock to 10 days before the session ends: past half its 30-day life, whatever ran before. */
const pastHalfLife = async () => (now = Math.max(...await expiry()) - 10 * 24 * 60 * 60 * 1000);

describe("files and probes", () => {
  test.each(["/static/icon.svg", "/favicon.ico", "/health", "/sw.js", "/manifest.webmanifest", "/static/nothing-here.svg", "/objects/00000000-0000-4000-8000-000000000000"])(
    "%s does not read the session",
    async (path) => {
      await pastHalfLife();
      const before = await expiry();
      const res = await person.get(path);
      expect(res.status).toBeLessThan(500);
      expect(renewsCookie(res)).toBe(false);
      expect(await expiry()).toEqual(before);
    },
  );

  test("a path under /assets/ that no file route matches still gets the full access check", async () => {
    // The catch-all route is not public: a signed-in person gets 404, a visitor the landing page.
    await pastHalfLife();
    const res = await person.get("/assets/a/b");
    expect(res.status).toBe(404);
    expect(renewsCookie(res)).toBe(true);
    const visitor = await t.client().get("/assets/a/b");
    expect(visitor.status).toBe(200);
    expect(await visitor.text()).toContain("Sign In");
  });

  test("a page reads the session, extends it and sends its cookie again", async () => {
    await pastHalfLife();
    const before = await expiry();
    const res = await person.get("/browse");
    expect(res.status).toBe(200);
    expect(renewsCookie(res)).toBe(true);
    expect(await expiry()).not.toEqual(before);
  });

  test("writes to those paths are not files: the session is read and checked", async () => {
    const res = await person.request("/static/icon.svg", { method: "POST", csrf: false });
    expect(res.status).toBe(403);
  });
});
