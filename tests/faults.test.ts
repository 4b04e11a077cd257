import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { userRow } from "../src/demo/factories";
import { activities, bookings, users } from "../db/schema";
import { asTestProvider } from "../src/web/payments";
import { RECOVERY_GRACE_MS } from "../src/bookings/claims";
import { logFailure } from "../src/web/shell/error-answers";
import { bookingParties, makeTestApp, ORIGIN, requestWithTestCard, type Client } from "./helpers";
import { moneyViolations } from "./money-invariants";

/**
 * Answers under faults (docs/decisions/0047), on either engine: input no database can hold (a
 * NUL character) is refused at the door; a failed query's log line holds no one's data; a
 * booking whose money movement was left to its recovery answers at once, saying so.
 */
const HOUR = 60 * 60 * 1000;
/** 2026-06-01 12:00 in New York. */
const START = Date.UTC(2026, 5, 1, 16, 0);
let clock = START;
const now = () => clock;

let t: Awaited<ReturnType<typeof makeTestApp>>;
let parties: Awaited<ReturnType<typeof bookingParties>>;
let person: Client;
let personId: string;
beforeAll(async () => {
  t = await makeTestApp({ now });
  parties = await bookingParties(t);
  person = parties.stranger;
  personId = ((await (await person.get("/api/user")).json()) as { id: string }).id;
});
afterAll(() => t.cleanup());

describe("a NUL character anywhere in a request is refused with 400 before any route", () => {
  const refused = async (res: Response, what: string) => {
    expect({ what, status: res.status }).toEqual({ what, status: 400 });
    if (res.headers.get("content-type")?.includes("json")) expect(((await res.json()) as { message: string }).message).toBe("The request could not be understood.");
  };

  test("in a path segment, with or without a session", async () => {
    const visitor = t.client();
    const paths = [
      `/calendar/%00/${"A".repeat(43)}.ics`,
      `/calendar/${personId}/%00${"A".repeat(42)}.ics`,
      "/api/users/by-username/%00",
      "/api/users/by-username/ad%00a",
      "/activity/%00",
      "/profile/%00",
      "/booking/%00",
      "/api/bookings/%00/details",
      "/objects/%00/thumb.webp",
      "/static/%00",
    ];
    for (const path of paths) {
      await refused(await person.get(path), `signed in: GET ${path}`);
      await refused(await visitor.get(path), `visitor: GET ${path}`);
    }
  });

  test("in the query", async () => {
    for (const path of ["/browse?city=%00", "/browse?q=ten%00nis", "/api/activities?category=%00", "/api/check-username?username=a%00b", "/welcome?next=%00", "/login?next=/%00"]) {
      await refused(await person.get(path), `GET ${path}`);
    }
  });

  test("in a form field, urlencoded or multipart, and in JSON (a value, a key, deep inside): nothing changes", async () => {
    const profile = async () => {
      const { updatedAt: _, ...rest } = (await (await person.get("/api/user")).json()) as Record<string, unknown>;
      return rest;
    };
    const before = await profile();
    const mine = async () => (await t.db.select({ id: activities.id }).from(activities).where(eq(activities.hostId, personId))).length;
    const ownActivities = await mine();

    await refused(await person.postForm("/edit-profile", { photos: JSON.stringify(before.photos), bio: "Hello\u0000there", interests: "" }), "form: POST /edit-profile");
    const multipart = new FormData();
    multipart.set("_csrf", person.csrf);
    multipart.set("photos", JSON.stringify(before.photos));
    multipart.set("bio", "Hello\u0000there");
    await refused(await person.request("/edit-profile", { method: "POST", body: multipart, csrf: false }), "multipart: POST /edit-profile");
    await refused(await t.client().postForm("/login", { email: "someone\u0000@example.com", password: "secret123" }), "form: POST /login");

    await refused(await person.putJson("/api/user/profile", { bio: "Hello\u0000there" }), "JSON: PUT /api/user/profile");
    await refused(await person.putJson("/api/user/profile", { interests: ["cooking", "ten\u0000nis"] }), "JSON list: PUT /api/user/profile");
    await refused(await person.putJson("/api/user/profile", { about: { work: { "\u0000": "x" } } }), "JSON key: PUT /api/user/profile");
    await refused(await person.postJson("/api/activities", { title: "Ten\u0000nis", description: "An hour of tennis.", category: "sports", hourlyRate: "40", duration: "1", maxDuration: "4" }), "JSON: POST /api/activities");
    await refused(await person.postJson("/api/login", { email: "a@example.com\u0000", password: "secret123" }), "JSON: POST /api/login");
    await refused(await person.request("/api/user/profile", { method: "PUT", body: '{"bio":"Hello\\u0000there"}', headers: { "content-type": "application/json" } }), "escaped JSON: PUT /api/user/profile");

    expect(await profile()).toEqual(before);
    expect(await mine()).toBe(ownActivities);
  });

  test("a NUL-free request with the same shapes still works, and text that merely looks like it is kept as typed", async () => {
    expect((await person.get("/browse?q=tennis")).status).toBe(200);
    // "%2500" is the text "%00" (percent sign, zero, zero), not a NUL: nothing to refuse.
    expect((await person.get("/api/users/by-username/%2500")).status).toBe(404);
    const res = await person.putJson("/api/user/profile", { bio: "Costs 100%00 of nothing" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { bio: string }).bio).toBe("Costs 100%00 of nothing");
  });
});

test("a failed query's log line names the query and the database's error, never the values it was given", async () => {
  const secret = `secret-${crypto.randomUUID()}@example.com`;
  // A second person with the first one's id: the database refuses it, and its error came with the values.
  const failure = await writeTransaction(t.db, (tx) => tx.insert(users).values({ ...userRow(), id: personId, email: secret })).then(
    () => null,
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(Error);
  const lines: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => lines.push(args.map((a) => (a instanceof Error ? `${a.stack}\n${JSON.stringify(a)}` : String(a))).join(" "));
  try {
    logFailure(new Request(`${ORIGIN}/api/user`), failure);
  } finally {
    console.error = error;
  }
  const logged = lines.join("\n");
  expect(logged).toContain("GET /api/user failed");
  expect(logged).toMatch(/unique|duplicate/i);
  expect(logged).not.toContain(secret);
  // Nor does the error itself, however another log line prints it.
  expect(Bun.inspect(failure)).not.toContain(secret);
});

describe("a booking whose money movement was left to its recovery (a lost answer, a crash)", () => {
  test("answers at once that it is being finished and finishes by itself; no 10-second wait", async () => {
    clock = START;
    const date = new Date(START + 3 * 24 * HOUR).toISOString().slice(0, 10);
    const made = await requestWithTestCard(parties.guest, { activityId: parties.activityId, date, hours: 2, total: "88.00" });
    expect(made.res.status).toBe(201);
    const id = ((await made.res.json()) as { id: string }).id;

    // The provider captures, and its answer never arrives: the capture is claimed and left to its recovery.
    asTestProvider(t.deps.payments)!.faults.loseAnswer.add("capture");
    const lost = await parties.host.postJson(`/api/bookings/${id}/accept`, {});
    expect(lost.status).toBe(502);
    expect((await one(t.db.select().from(bookings).where(eq(bookings.id, id))))?.claim?.movement).toBe("capture");

    // The same process, then a new one on the same data (as after a crash): each meets the claim.
    const restarted = await makeTestApp({ now, dataDir: t.dataDir });
    const asHostAgain = restarted.client();
    await asHostAgain.signInAs(parties.hostId);
    const asGuestAgain = restarted.client();
    await asGuestAgain.signInAs(parties.guestId);
    const asks: [string, () => Promise<Response>][] = [
      ["the host accepts again", () => parties.host.postJson(`/api/bookings/${id}/accept`, {})],
      ["the guest withdraws", () => parties.guest.postJson(`/api/bookings/${id}/cancel`, {})],
      ["after a restart, the host accepts again", () => asHostAgain.postJson(`/api/bookings/${id}/accept`, {})],
      ["after a restart, the guest withdraws", () => asGuestAgain.postJson(`/api/bookings/${id}/cancel`, {})],
    ];
    for (const [what, ask] of asks) {
      const started = performance.now();
      const res = await ask();
      const tookMs = performance.now() - started;
      expect({ what, status: res.status }).toEqual({ what, status: 409 });
      expect({ what, fast: tookMs < 2_000 }).toEqual({ what, fast: true });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(((await res.json()) as { message: string }).message).toBe(
        "This booking is being finished: a payment step is under way and completes by itself within a few minutes. Nothing more is needed from you.",
      );
    }
    expect((await one(t.db.select().from(bookings).where(eq(bookings.id, id))))?.status).toBe("pending");

    // Its recovery, once the grace has passed, records what the provider did: accepted, charged once.
    clock += RECOVERY_GRACE_MS + 1000;
    await restarted.deps.jobs.runDue();
    expect(await one(t.db.select({ status: bookings.status, claim: bookings.claim }).from(bookings).where(eq(bookings.id, id)))).toEqual({ status: "accepted", claim: null });
    // An accept asked now is one asked after the change ended: refused as already answered.
    const late = await asHostAgain.postJson(`/api/bookings/${id}/accept`, {});
    expect(late.status).toBe(409);
    expect(((await late.json()) as { message: string }).message).not.toContain("being finished");
    expect(await moneyViolations(restarted.deps, [id])).toEqual([]);
  });
});
