import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { one, writeTransaction } from "../db/client";
import { insert, userRow } from "../src/demo/factories";
import { externalBusy, users, type User } from "../db/schema";
import { busyCalendarJob, busyJobKey } from "../src/availability/busy-calendar";
import { scheduleJob } from "../src/jobs";
import { translator } from "../src/texts";
import { makeTestApp, openDatabaseOf, until } from "./helpers";
import { startServerProcess, type ServerProcess } from "./server-process";

/**
 * A host's outside calendar is worked out away from the server's thread, within a time budget
 * (docs/decisions/0043): calendars served by a local iCal server, read by the busy-calendar job
 * as a host's save sets it off, while `/health` is asked every 25 ms and must keep answering.
 */
const MINUTE = 60 * 1000;
// 2026-06-01 12:00 in New York (16:00 UTC), a Monday.
const START = Date.UTC(2026, 5, 1, 16, 0);
const now = () => START;
/** How late `/health` may answer while a calendar is read. */
const NORMAL_MS = 500;

const ny = (local: string) => Temporal.PlainDateTime.from(local).toZonedDateTime("America/New_York").epochMilliseconds;

const calendar = (...events: string[][]) => ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Test//Budget//EN", ...events.flat(), "END:VCALENDAR", ""].join("\r\n");
const event = (uid: string, ...lines: string[]) => ["BEGIN:VEVENT", `UID:${uid}`, "DTSTAMP:20260501T000000Z", ...lines, "END:VEVENT"];

const CALENDARS: Record<string, string> = {
  // Every day in February that is the 30th: ical.js looks for one for ever, inside one step.
  "/feb30.ics": calendar(event("feb30@test", "DTSTART:20260602T100000Z", "DTEND:20260602T110000Z", "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30", "SUMMARY:Never")),
  "/feb31.ics": calendar(event("feb31@test", "DTSTART:20260602T100000Z", "DTEND:20260602T103000Z", "RRULE:FREQ=HOURLY;BYMONTH=2;BYMONTHDAY=31", "SUMMARY:Never either")),
  // A rule that does match, every minute, a hundred million times.
  "/minutely.ics": calendar(event("minutely@test", "DTSTART:20260602T100000Z", "DTEND:20260602T100100Z", "RRULE:FREQ=MINUTELY;COUNT=100000000", "SUMMARY:Busy")),
  "/normal.ics": calendar(
    // Daily 09:00-09:30, five times.
    event("standup@test", "DTSTART;TZID=America/New_York:20260602T090000", "DTEND;TZID=America/New_York:20260602T093000", "RRULE:FREQ=DAILY;COUNT=5"),
    // Daily 09:00-10:00, three times, the second one moved to 18:00: it moves only this series'.
    event("gym@test", "DTSTART;TZID=America/New_York:20260602T090000", "DTEND;TZID=America/New_York:20260602T100000", "RRULE:FREQ=DAILY;COUNT=3"),
    event("gym@test", "RECURRENCE-ID;TZID=America/New_York:20260603T090000", "DTSTART;TZID=America/New_York:20260603T180000", "DTEND;TZID=America/New_York:20260603T190000"),
    // Weekly on Mondays 10:00-12:00, four times, the second taken out.
    event("yoga@test", "DTSTART;TZID=America/New_York:20260608T100000", "DTEND;TZID=America/New_York:20260608T120000", "RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=America/New_York:20260615T100000"),
  ),
};

const NORMAL_BUSY = [
  [ny("2026-06-02T09:00"), ny("2026-06-02T10:00")],
  [ny("2026-06-03T09:00"), ny("2026-06-03T09:30")],
  [ny("2026-06-03T18:00"), ny("2026-06-03T19:00")],
  [ny("2026-06-04T09:00"), ny("2026-06-04T10:00")],
  [ny("2026-06-05T09:00"), ny("2026-06-05T09:30")],
  [ny("2026-06-06T09:00"), ny("2026-06-06T09:30")],
  [ny("2026-06-08T10:00"), ny("2026-06-08T12:00")],
  [ny("2026-06-22T10:00"), ny("2026-06-22T12:00")],
  [ny("2026-06-29T10:00"), ny("2026-06-29T12:00")],
];

const TOO_SLOW = { en: translator("en")("availability.busy.error.tooSlow"), fr: translator("fr")("availability.busy.error.tooSlow") };

let calendars: ReturnType<typeof Bun.serve>;
let t: Awaited<ReturnType<typeof makeTestApp>>;

beforeAll(async () => {
  calendars = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const text = CALENDARS[new URL(req.url).pathname];
      return text ? new Response(text, { headers: { "content-type": "text/calendar" } }) : new Response("no", { status: 404 });
    },
  });
  t = await makeTestApp({ now });
});
afterAll(async () => {
  await calendars?.stop(true);
  t?.cleanup();
});

const calendarUrl = (path: string) => `http://127.0.0.1:${calendars.port}${path}`;

const userOf = async (db: typeof t.db, id: string) => (await one(db.select().from(users).where(eq(users.id, id))))!;

const rowsOf = async (hostId: string) =>
  (await t.db.select({ startsAt: externalBusy.startsAt, endsAt: externalBusy.endsAt }).from(externalBusy).where(eq(externalBusy.hostId, hostId)))
    .map((r) => [r.startsAt, r.endsAt])
    .sort((a, b) => a[0]! - b[0]!);

/** A host who has just saved `path` as their outside calendar, which sets off its read. */
async function hostSaving(path: string, locale: "en" | "fr" = "en"): Promise<{ host: User; page: () => Promise<string> }> {
  const host = await insert(t.db).user(userRow({ firstName: "Hana", locale }));
  const c = t.client();
  await c.signInAs(host.id);
  const res = await c.postForm("/availability/busy-calendar", { url: calendarUrl(path), action: "save", next: "/host/availability" });
  expect(res.status).toBe(303);
  return { host, page: async () => (await c.get("/host/availability")).text() };
}

/** The read of a host's calendar ended, either way. */
const readEnded = (db: typeof t.db, id: string) => async () => {
  const row = await userOf(db, id);
  return row.busyCalendarFetchedAt !== null || row.busyCalendarError !== null;
};

/**
 * Asks `/health` (through the app) every 25 ms until `done`, and answers the latest any answer
 * came: how long past its 25 ms the wait and the answer took, which is how long a request
 * arriving then would have waited for the server's thread.
 */
async function healthLatenessWhile(done: () => Promise<boolean>, timeoutMs = 20_000): Promise<number> {
  let worst = 0;
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for the calendar's read to end");
    const asked = performance.now();
    await Bun.sleep(25);
    const res = await t.app.handle(new Request("http://localhost/health"));
    expect(res.status).toBe(200);
    worst = Math.max(worst, performance.now() - asked - 25);
  }
  return worst;
}

const threads = () => readdirSync("/proc/self/task").length;
/** CPU time this process uses over `ms` (every thread of it). */
async function cpuOver(ms: number) {
  const before = process.cpuUsage();
  await Bun.sleep(ms);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe("outside calendars are worked out off the server's thread", () => {
  test("a normal recurring calendar gives its busy times: each series with its own changes, taken-out times left out", async () => {
    const { host, page } = await hostSaving("/normal.ics");
    const lateness = await healthLatenessWhile(readEnded(t.db, host.id));
    expect(await userOf(t.db, host.id)).toMatchObject({ busyCalendarError: null, busyCalendarFetchedAt: START });
    expect(await rowsOf(host.id)).toEqual(NORMAL_BUSY);
    expect(await page()).toContain(`Last read Jun 1, 2026, 12:00 PM: ${NORMAL_BUSY.length} busy times ahead.`);
    expect(lateness).toBeLessThan(NORMAL_MS);
  });

  test("rules that never match (every 30 February, daily; every 31 February, hourly) are refused with the card's error, while requests are answered", async () => {
    // The threads the runtime keeps once a worker has run (the first read started them).
    const baselineThreads = threads();
    const [feb30, feb31] = await Promise.all([hostSaving("/feb30.ics", "en"), hostSaving("/feb31.ics", "fr")]);
    const started = performance.now();
    const lateness = await healthLatenessWhile(async () => (await readEnded(t.db, feb30.host.id)()) && (await readEnded(t.db, feb31.host.id)()));
    const took = performance.now() - started;
    expect(lateness).toBeLessThan(NORMAL_MS);
    // Both within the budget (three seconds), not for ever.
    expect(took).toBeLessThan(10_000);

    expect(await userOf(t.db, feb30.host.id)).toMatchObject({ busyCalendarError: TOO_SLOW.en, busyCalendarFetchedAt: null });
    expect(await userOf(t.db, feb31.host.id)).toMatchObject({ busyCalendarError: TOO_SLOW.fr, busyCalendarFetchedAt: null });
    expect(await rowsOf(feb30.host.id)).toEqual([]);
    expect(await rowsOf(feb31.host.id)).toEqual([]);
    const card = await feb30.page();
    expect(card).toContain("The calendar could not be read");
    expect(card).toContain("The calendar takes too long to read: one of its repeating events may never happen (such as every 30 February) or repeat too often.");
    expect(await feb31.page()).toContain("est trop long à lire");

    // The threads that never ended by themselves were ended: none is left spinning.
    await until("the ended threads to be gone", () => threads() <= baselineThreads, 5_000);
    expect(await cpuOver(1_000)).toBeLessThan(300);
  });

  test("a rule every minute, a hundred million times, does not hold requests while it is worked out", async () => {
    const baselineThreads = threads();
    const { host } = await hostSaving("/minutely.ics");
    const lateness = await healthLatenessWhile(readEnded(t.db, host.id));
    expect(lateness).toBeLessThan(NORMAL_MS);
    const row = await userOf(t.db, host.id);
    // About a second of work, within the budget on a machine that is not overloaded: then its
    // first 200,000 minutes (the cap on recurrence steps) are one busy time.
    if (row.busyCalendarError === null) {
      expect(await rowsOf(host.id)).toEqual([[Date.UTC(2026, 5, 2, 10), Date.UTC(2026, 5, 2, 10) + 200_000 * MINUTE]]);
    } else {
      expect(row.busyCalendarError).toBe(TOO_SLOW.en);
    }
    await until("its thread to be gone", () => threads() <= baselineThreads, 5_000);
  });
});

describe("the server process", () => {
  let server: ServerProcess | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), "offline-busy-budget-"));
  afterAll(async () => {
    server?.proc.kill("SIGKILL");
    await server?.proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("/health answers in normal time while its job reads a calendar that never ends, which is then refused", async () => {
    server = await startServerProcess({ env: { DATA_DIR: dataDir } });
    const db = await openDatabaseOf(dataDir);
    const host = await insert(db).user(userRow({ firstName: "Hana", locale: "en" }));
    // As a save leaves it: the address, and its read due now, which the server's job loop runs.
    await writeTransaction(db, async (tx) => {
      await tx.update(users).set({ busyCalendarUrl: calendarUrl("/feb30.ics") }).where(eq(users.id, host.id));
      await scheduleJob(tx, busyCalendarJob, { hostId: host.id }, { at: Date.now(), key: busyJobKey(host.id) });
    });
    let worst = 0;
    await until(
      "the server's read to end",
      async () => {
        const started = performance.now();
        const res = await fetch(`${server!.url}/health`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        // No answer in 5 s: the server's thread is held; nothing more to wait for.
        if (!res) return (worst = Infinity) > 0;
        expect(res.status).toBe(200);
        worst = Math.max(worst, performance.now() - started);
        return readEnded(db, host.id)();
      },
      30_000,
      25,
    );
    expect(worst).toBeLessThan(NORMAL_MS);
    expect((await userOf(db, host.id)).busyCalendarError).toBe(TOO_SLOW.en);
    // Still serving after.
    expect((await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5_000) })).status).toBe(200);
  });
});
