import { and, count, eq, gt } from "drizzle-orm";
import { writeTransaction, one } from "../../db/client";
import { externalBusy, jobs, users, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { cancelJob, defineJob, scheduleJob, type JobDeps } from "../jobs";
import { DomainError, isDomainError } from "../../lib/domain-error";
import { loggable } from "../../db/faults";
import { checkAddressText, checkDestination, pinnedRequest, systemResolver, type PushDestination, type Resolver } from "../notifications/destinations";
import { allowsLocalPushServices } from "../notifications/service";
import { chosenLocale, translator, type Locale } from "../../lib/i18n";
import { embeddedFiles } from "../../lib/assets";
import { hostZone } from "./blocks";
import type { BusyInterval } from "./busy-times";
import type { ExpandAnswer, ExpandRequest } from "./busy-times.worker";
import { BUSY_URL_MAX } from "../../shared/limits";

/**
 * A host's outside busy calendar (docs/decisions/0037): one iCal URL, read by a durable job every
 * 30 minutes through the push service's outbound-address guard (src/notifications/destinations.ts:
 * public https host names only, every resolved address checked, the connection made to the
 * checked addresses only), within a time and size limit, without following redirects blindly
 * (each one is checked again). Its events from now to a year ahead become the host's
 * `external_busy` rows, replaced whole in one transaction; a failed read keeps the earlier rows
 * and says why in `users.busyCalendarError`. The events are worked out on a worker thread within
 * a time budget (decision 0043).
 */

/** How often the calendar is read again. */
export const BUSY_REFRESH_MS = 30 * 60 * 1000;
const MAX_REDIRECTS = 3;

export interface BusyFetchOptions {
  /** The whole read (resolving, connecting, the answer) must end within this. */
  timeoutMs: number;
  /** Bytes of the answer read at most; a longer one is refused. */
  maxBytes: number;
  /** How host names are resolved (tests hand in their own). */
  resolve: Resolver;
}

export const DEFAULT_BUSY_FETCH: BusyFetchOptions = { timeoutMs: 10_000, maxBytes: 1024 * 1024, resolve: systemResolver };

/** Per app: what a test changes of the fetch limits (the server keeps the defaults). */
const fetchOptions = new WeakMap<object, Partial<BusyFetchOptions>>();
export function setBusyFetchOptions(deps: Pick<Deps, "db">, options: Partial<BusyFetchOptions>) {
  fetchOptions.set(deps.db, options);
}
const optionsFor = (deps: Pick<Deps, "db">): BusyFetchOptions => ({ ...DEFAULT_BUSY_FETCH, ...fetchOptions.get(deps.db) });

export const busyJobKey = (hostId: string) => `availability.busyCalendar:${hostId}`;

// ---------------------------------------------------------------------------------------------
// Setting and clearing the URL

/** The URL as typed, checked as text (an https host name on the internet; loopback only on a development machine). */
function checkedText(deps: Deps, value: string): string {
  const trimmed = value.trim();
  if (trimmed.length > BUSY_URL_MAX) throw new DomainError("availability.busy.tooLong", 400);
  // webcal:// is how calendar apps often hand these out: it is https underneath.
  const typed = /^webcals?:\/\//i.test(trimmed) ? trimmed.replace(/^webcals?:\/\//i, "https://") : trimmed;
  try {
    return checkAddressText(typed, allowsLocalPushServices(deps)).href;
  } catch (err) {
    if (isDomainError(err)) throw new DomainError("availability.busy.invalid", 400, { log: `busy calendar refused: ${err.message}` });
    throw err;
  }
}

/**
 * Saves the host's outside calendar and schedules its first read at once. The name must resolve,
 * now, to addresses on the internet (the read checks again each time). An empty value clears it.
 */
export async function setBusyCalendar(deps: Deps, hostId: string, value: string, resolve: Resolver = optionsFor(deps).resolve): Promise<void> {
  if (!value.trim()) return clearBusyCalendar(deps, hostId);
  const url = checkedText(deps, value);
  try {
    await checkDestination(url, allowsLocalPushServices(deps), resolve);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    throw new DomainError(err.status === 503 ? "availability.busy.unreachable" : "availability.busy.invalid", 400, { log: `busy calendar refused: ${err.message}` });
  }
  const now = deps.now();
  await writeTransaction(deps.db, async (tx) => {
    const before = await one(tx.select({ url: users.busyCalendarUrl }).from(users).where(eq(users.id, hostId)));
    const changed = before?.url !== url;
    await tx.update(users)
      .set({ busyCalendarUrl: url, ...(changed ? { busyCalendarFetchedAt: null, busyCalendarError: null } : {}), updatedAt: now })
      .where(eq(users.id, hostId));
    // A new address's events replace the old one's at its first read; until then none block.
    if (changed) await tx.delete(externalBusy).where(eq(externalBusy.hostId, hostId));
    await cancelJob(tx, busyJobKey(hostId));
    await scheduleJob(tx, busyCalendarJob, { hostId }, { at: now, key: busyJobKey(hostId) });
  });
  // Read it now rather than at the runner's next pass (a job under way is left to finish).
  void deps.jobs.runNow([busyJobKey(hostId)]).catch((err) => console.error(`busy calendar read failed: ${loggable(err)}`));
}

/** Removes the host's outside calendar, its busy times and its waiting read. */
export async function clearBusyCalendar(deps: Deps, hostId: string) {
  await writeTransaction(deps.db, async (tx) => {
    await tx.update(users).set({ busyCalendarUrl: null, busyCalendarFetchedAt: null, busyCalendarError: null, updatedAt: deps.now() }).where(eq(users.id, hostId));
    await tx.delete(externalBusy).where(eq(externalBusy.hostId, hostId));
    await cancelJob(tx, busyJobKey(hostId));
  });
}

/** What the busy-calendar card shows. */
export async function busyCalendarState(deps: Pick<Deps, "db" | "now">, user: Pick<User, "id">) {
  const row = await one(deps.db
    .select({ url: users.busyCalendarUrl, fetchedAt: users.busyCalendarFetchedAt, error: users.busyCalendarError })
    .from(users)
    .where(eq(users.id, user.id)));
  const events = await one(deps.db
    .select({ n: count() })
    .from(externalBusy)
    .where(and(eq(externalBusy.hostId, user.id), gt(externalBusy.endsAt, deps.now()))));
  return { url: row?.url ?? null, fetchedAt: row?.fetchedAt ?? null, error: row?.error ?? null, events: events?.n ?? 0 };
}

// ---------------------------------------------------------------------------------------------
// Reading the calendar
//
// A read the calendar refuses (no answer in time, too large, not a calendar…) is a `DomainError`
// whose key is what the host reads on the card (`busyCalendarError`), with what went wrong for
// the log: 502 when its server did not give it, 422 when what it gave cannot be read. Anything
// else thrown is a failure of ours.

/** One GET to checked addresses only, within `deadline` and `maxBytes`; no redirect followed. */
function get(destination: PushDestination, deadline: number, maxBytes: number): Promise<{ status: number; location: string | null; body: Buffer }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const req = pinnedRequest(destination, "GET", { accept: "text/calendar, */*;q=0.5", "user-agent": "Offline busy-calendar reader", "accept-encoding": "identity" });
    const timer = setTimeout(() => {
      finish(() => reject(new DomainError("availability.busy.error.timeout", 502, { log: "no answer in time" })));
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    req.on("error", (err) => finish(() => reject(new DomainError("availability.busy.unreachable", 502, { log: err.message }))));
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const location = res.headers.location ?? null;
        res.resume();
        finish(() => resolve({ status, location, body: Buffer.alloc(0) }));
        req.destroy();
        return;
      }
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > maxBytes) {
        finish(() => reject(new DomainError("availability.busy.error.tooLarge", 422)));
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          // Nothing more is read.
          finish(() => reject(new DomainError("availability.busy.error.tooLarge", 422)));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on("end", () => finish(() => resolve({ status, location: null, body: Buffer.concat(chunks) })));
      res.on("error", (err) => finish(() => reject(new DomainError("availability.busy.unreachable", 502, { log: err.message }))));
    });
    req.end();
  });
}

/**
 * The calendar's text: its address checked (as text, then what it resolves to), then read from
 * those addresses; a redirect is followed only after its own address passes the same checks.
 */
export async function fetchCalendarText(deps: Deps, address: string, options: BusyFetchOptions = optionsFor(deps)): Promise<string> {
  const deadline = Date.now() + options.timeoutMs;
  const allowLoopback = allowsLocalPushServices(deps);
  let current = address;
  for (let hop = 0; ; hop++) {
    let destination: PushDestination;
    try {
      destination = await checkDestination(current, allowLoopback, options.resolve, Math.max(0, deadline - Date.now()));
    } catch (err) {
      if (isDomainError(err)) throw err.status === 503 ? new DomainError("availability.busy.unreachable", 502, { log: err.message }) : new DomainError("availability.busy.invalid", 422, { log: err.message });
      throw err;
    }
    const answer = await get(destination, deadline, options.maxBytes);
    if (answer.status >= 300 && answer.status < 400) {
      if (!answer.location || hop >= MAX_REDIRECTS) throw new DomainError("availability.busy.error.redirects", 502);
      current = new URL(answer.location, destination.url).href;
      continue;
    }
    if (answer.status < 200 || answer.status >= 300) throw new DomainError("availability.busy.error.status", 502, { params: { status: answer.status } });
    return answer.body.toString("utf8");
  }
}

// ---------------------------------------------------------------------------------------------
// Reading the events

/**
 * How long one calendar's events may take to work out, from its worker's start. Within the caps
 * (1 MB of text, 200,000 recurrence steps) the slowest calendar takes about a second on a busy
 * two-core machine, and a 1 MB calendar of 4,000 events about 50 ms; a rule that never matches
 * never ends. The job pass runs its jobs one after another, so this is also the most such a
 * calendar holds the others up.
 */
const BUSY_EXPAND_BUDGET_MS = 3_000;
/** Calendars worked out at once (each on a thread of its own); the others wait their turn. */
const EXPANSIONS_AT_ONCE = 2;

let expanding = 0;
const waitingTurn: (() => void)[] = [];
/** Waits for a free place among EXPANSIONS_AT_ONCE; answers the function that gives it back. */
async function expansionTurn(): Promise<() => void> {
  if (expanding < EXPANSIONS_AT_ONCE) expanding++;
  // The place is handed over as it is, so `expanding` stays as it was.
  else await new Promise<void>((resolve) => waitingTurn.push(resolve));
  return () => {
    const next = waitingTurn.shift();
    if (next) next();
    else expanding--;
  };
}

/**
 * The worker's module: beside this file when running from source; in the single binary, the entry
 * point the build adds under its path from the project root (scripts/build.ts), which is how Bun
 * finds a worker embedded in it.
 */
const workerModule = () => (embeddedFiles() ? "./src/availability/busy-times.worker.ts" : new URL("./busy-times.worker.ts", import.meta.url).href);

/**
 * The busy times of a calendar's text (busy-times.ts), worked out on a thread of its own: ical.js
 * can loop for ever inside one step of a rule that never matches ("every 30 February"), and a
 * legitimate rule every minute takes a second, neither of which may hold the server's requests.
 * The thread is ended after BUSY_EXPAND_BUDGET_MS, and such a calendar is refused like any other
 * bad one; a new thread is started for each calendar, so an ended one is never used again.
 */
async function expandBusyTimes(text: string, zone: string, from: number): Promise<BusyInterval[]> {
  const done = await expansionTurn();
  try {
    const answer = await new Promise<ExpandAnswer>((resolve, reject) => {
      const worker = new Worker(workerModule());
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        worker.terminate();
        fn();
      };
      const timer = setTimeout(
        () => finish(() => reject(new DomainError("availability.busy.error.tooSlow", 422, { log: `not worked out within ${BUSY_EXPAND_BUDGET_MS} ms` }))),
        BUSY_EXPAND_BUDGET_MS,
      );
      worker.addEventListener("message", (event: MessageEvent<ExpandAnswer>) => finish(() => resolve(event.data)));
      worker.addEventListener("error", (event: ErrorEvent) => finish(() => reject(new Error(`the busy-times worker failed: ${event.message}`))));
      // Ended without answering (out of memory, say).
      worker.addEventListener("close", () => finish(() => reject(new Error("the busy-times worker stopped without an answer"))));
      const request: ExpandRequest = { text, zone, from };
      worker.postMessage(request);
    });
    if ("times" in answer) return answer.times;
    if ("refused" in answer) throw new DomainError(answer.refused, 422, { log: answer.detail });
    throw new Error(`busy times could not be worked out: ${answer.failed}`);
  } finally {
    done();
  }
}

// ---------------------------------------------------------------------------------------------
// The job

const localeOf = (deps: Deps, user: Pick<User, "locale">): Locale => chosenLocale(user.locale, deps.config.defaultLanguage);


/**
 * Reads the host's outside calendar once and records the outcome: the new busy times, or (on a
 * failure) the reason, keeping the earlier times. Schedules the next read in 30 minutes.
 * `jobId`: the job under way, whose row gives up its key so the next read can take it.
 */
export async function refreshBusyCalendar(deps: Deps, hostId: string, jobId?: string): Promise<"read" | "failed" | "none"> {
  const user = await one(deps.db.select().from(users).where(eq(users.id, hostId)));
  if (!user?.busyCalendarUrl) return "none";
  const url = user.busyCalendarUrl;
  // What this read gave: the calendar's busy times, or why it could not be read, as the host reads it.
  let outcome: { read: BusyInterval[] } | { failed: string };
  try {
    const text = await fetchCalendarText(deps, url);
    outcome = { read: await expandBusyTimes(text, hostZone(user), deps.now()) };
  } catch (err) {
    const t = translator(localeOf(deps, user));
    // A failure of ours is logged; the host reads that the calendar could not be read.
    if (!isDomainError(err)) console.error(`busy calendar of ${hostId} could not be read: ${loggable(err)}`);
    outcome = { failed: isDomainError(err) ? t(err.key, err.params) : t("availability.busy.error.notCalendar") };
  }
  const now = deps.now();
  return writeTransaction(deps.db, async (tx) => {
    const current = await one(tx.select({ url: users.busyCalendarUrl }).from(users).where(eq(users.id, hostId)));
    const key = busyJobKey(hostId);
    if (jobId) await tx.update(jobs).set({ key: null }).where(eq(jobs.id, jobId));
    // Removed meanwhile: nothing to write, no next read.
    if (!current?.url) return "none";
    // Changed meanwhile: what was read is the old address's; the new one is read at once.
    if (current.url !== url) {
      await scheduleJob(tx, busyCalendarJob, { hostId }, { at: now, key });
      return "none";
    }
    if ("read" in outcome) {
      await tx.delete(externalBusy).where(eq(externalBusy.hostId, hostId));
      const rows = outcome.read.map((s) => ({ id: crypto.randomUUID(), hostId, startsAt: s.startsAt, endsAt: s.endsAt }));
      // SQLite's limit on bound values: 4 per row.
      for (let i = 0; i < rows.length; i += 200) await tx.insert(externalBusy).values(rows.slice(i, i + 200));
      await tx.update(users).set({ busyCalendarFetchedAt: now, busyCalendarError: null }).where(eq(users.id, hostId));
    } else {
      await tx.update(users).set({ busyCalendarError: outcome.failed }).where(eq(users.id, hostId));
    }
    // The next read (a read already waiting under the key, from a save made meanwhile, stays).
    await scheduleJob(tx, busyCalendarJob, { hostId }, { at: now + BUSY_REFRESH_MS, key });
    return "read" in outcome ? "read" : "failed";
  });
}

/** `availability.busyCalendar`: one host's outside calendar, read now and every 30 minutes after. */
export const busyCalendarJob = defineJob<{ hostId: string }>({
  kind: "availability.busyCalendar",
  async run(payload, { deps, job }) {
    await refreshBusyCalendar(deps as JobDeps & Deps, payload.hostId, job.id);
  },
});
