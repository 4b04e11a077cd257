/**
 * Browse with filters (docs/decisions/0054-find-by-when.md): the activities of a city with an
 * open start on a date, at a time of day, for so many people, under a price, in an order.
 *
 * SQL narrows first (city, category, listed, price, a group's seats, horizon, notice) and pages
 * in the page's order; then the open starts are worked out for those candidates only, a batch
 * at a time, by the booking screens' own rule (`openTimes`: weekly hours, days off, notice,
 * horizon, outside busy calendars, bookings, spots), until the page is full. A city of a hundred
 * thousand activities costs what its first few dozen candidates cost.
 */
import { and, gt, inArray, lt, sql } from "drizzle-orm";
import { perDb, readCache, type Db } from "../../db/client";
import { dialect } from "../../db/dialect";
import { bookings, externalBusy, hostBlocks, type Activity } from "../../db/schema";
import { zoneOfCity } from "../../lib/places";
import { parseDate } from "../../lib/time";
import { DAY_MINUTES } from "../../shared/availability";
import { madeOnce } from "../../shared/memo";
import { asksWhen, datesOf, filterParams, TIME_WINDOWS, type BrowseFilters } from "../activities/filters";
import {
  activityCard,
  BROWSE_COUNT_CAP,
  browseCandidates,
  candidateRules,
  countCandidates,
  decodeCandidateCursor,
  encodeCandidateCursor,
  listedWithHosts,
  listingsWithRatings,
  type ActivityCard,
  type ActivityListing,
  type CandidateCursor,
  type CandidateFilter,
  type FirstStart,
  type RuleColumns,
} from "../activities/queries";
import { heldColumns } from "./availability";
import { HOLDING, holdsTime } from "./holds";
import { heldSessions } from "./sessions";
import { FLOWS, localNow, openTimes } from "./times";

/** The booking screens' reading whose starts browse offers: the date-time screen's, over the activity's whole horizon. */
const FLOW = "datetime" as const;

/** Candidates are checked this many at a time (one read of their hosts' busy times each). */
const BATCH = 40;
/** With a date, time of day or people, at most this many are counted: past it, "50+ activities found". */
export const WHEN_COUNT_CAP = 50;
/** A request checks at most this many candidates: a page not full by then ends there, and "Load more" goes on. */
export const WHEN_SCAN_MAX = 400;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface FindQuery {
  city: string;
  category?: string;
  limit: number;
  cursor?: string;
  filters: BrowseFilters;
}

/** A listing with its first matching start (with a date, time of day or people filter). */
export type FoundListing = ActivityListing & { firstStart?: FirstStart };

export interface FoundPage {
  listings: FoundListing[];
  nextCursor: string | null;
  /** Counted up to BROWSE_COUNT_CAP (price alone) or WHEN_COUNT_CAP (when), from the cursor on. */
  total: number;
  capped: boolean;
}

/**
 * Filtered pages are the same for every guest until the database changes or a local hour turns:
 * starts are on the hour and notices whole hours, so what is open changes only then. The cities'
 * zones are whole or half hours off UTC, so a page is read once per change and half hour.
 */
const foundCache = readCache<FoundPage>(500);

/** A filtered browse page: its listings, each with its first matching start when the filters ask when. */
export async function findActivities(db: Db, q: FindQuery, now: number): Promise<FoundPage> {
  const key = [q.city, q.category ?? "", q.cursor ?? "", q.limit, new URLSearchParams(filterParams(q.filters)).toString(), Math.floor(now / 1_800_000)].join("\u0000");
  return await foundCache(db, key, () => readFound(db, q, now));
}

/** A filtered browse page read afresh, nothing kept (`findActivities` keeps it): for the bench's cold reads. */
export async function readFound(db: Db, q: FindQuery, now: number): Promise<FoundPage> {
  const f = q.filters;
  const after = decodeCandidateCursor(q.cursor);
  const today = new Date(now);
  const byOrder = f.sort === "recommended" || f.sort === "newest";
  const base: CandidateFilter = { city: q.city, category: q.category, maxPriceCents: f.maxPriceCents, people: f.people, sort: f.sort };
  const positionAfter = (row: { activity: Activity }, index: number): CandidateCursor =>
    byOrder ? { createdAt: row.activity.createdAt, id: row.activity.id } : { offset: (after && "offset" in after ? after.offset : 0) + index + 1 };

  if (!asksWhen(f)) {
    // Price and order alone: SQL answers it all, as plain browse does.
    const [rows, counted] = await Promise.all([browseCandidates(db, base, after, q.limit + 1), countCandidates(db, base, BROWSE_COUNT_CAP + 1)]);
    const page = rows.slice(0, q.limit);
    return {
      listings: await listingsWithRatings(db, page, today),
      nextCursor: rows.length > q.limit ? encodeCandidateCursor(positionAfter(page[page.length - 1]!, page.length - 1)) : null,
      total: Math.min(counted, BROWSE_COUNT_CAP),
      capped: counted > BROWSE_COUNT_CAP,
    };
  }

  const zone = zoneOfCity(q.city);
  const dates = datesOf(f.date, zone, now);
  const todayLocal = parseDate(localNow(zone, now).date)!;
  const offsets = dates.map((d) => todayLocal.until(parseDate(d)!, { largestUnit: "days" }).days);
  const window = f.timeOfDay ? TIME_WINDOWS[f.timeOfDay] : ([0, DAY_MINUTES] as [number, number]);
  // The last start asked (the flow's last hour inside the window, on the last date): a notice longer than the wait to it leaves nothing.
  const lastHour = Math.min(FLOWS[FLOW].lastHour, Math.ceil(window[1] / 60) - 1);
  const lastStart = parseDate(dates[dates.length - 1])!.toPlainDateTime({ hour: lastHour }).toZonedDateTime(zone, { disambiguation: "compatible" }).epochMilliseconds;
  // Every start asked has passed (this evening, late at night): nothing to look for.
  if (lastStart <= now) return { listings: [], nextCursor: null, total: 0, capped: false };
  // Weekly hours are read in SQL as far as a range overlapping the window on a day asked: a sure
  // "no" for most activities that cannot match, before any open time is worked out.
  const weekdays = dates.map((d) => parseDate(d)!.dayOfWeek - 1);
  const hours = f.timeOfDay || weekdays.length < 7 ? { weekdays, window } : undefined;
  const narrowed: CandidateFilter = { ...base, firstDayOffset: offsets[0], noticeAtMost: Math.floor((lastStart - now) / 60_000), hours };
  const span = { first: offsets[0]!, last: offsets[offsets.length - 1]!, dates, window, people: f.people ?? 1 };

  // Candidates are read with the rule's columns only; the page's cards, whole with their hosts, once known.
  const found: { row: RuleColumns; start: FirstStart; index: number }[] = [];
  const startOffset = after && "offset" in after ? after.offset : 0;
  const positionOf = (row: RuleColumns, index: number): CandidateCursor => (byOrder ? { createdAt: row.createdAt, id: row.id } : { offset: startOffset + index + 1 });
  let position = after;
  let scanned = 0;
  let exhausted = false;
  let last: { row: RuleColumns; index: number } | null = null;
  // The page's cards and one more (is there a next page?), then counting on up to the cap, within the scan's budget.
  while (!exhausted && scanned < WHEN_SCAN_MAX && found.length <= WHEN_COUNT_CAP) {
    const wanted = found.length <= q.limit ? q.limit + 1 - found.length + 4 : BATCH;
    const size = Math.min(wanted, BATCH, WHEN_SCAN_MAX - scanned);
    const rows = await candidateRules(db, narrowed, position, size);
    if (rows.length < size) exhausted = true;
    const starts = await firstStarts(db, rows, span, now);
    for (let i = 0; i < rows.length; i++) {
      const start = starts[i];
      if (start) found.push({ row: rows[i]!, start, index: scanned + i });
      last = { row: rows[i]!, index: scanned + i };
    }
    if (rows.length) position = positionOf(rows[rows.length - 1]!, scanned + rows.length - 1);
    scanned += rows.length;
  }
  const page = found.slice(0, q.limit);
  let nextCursor: string | null = null;
  if (found.length > q.limit) nextCursor = encodeCandidateCursor(positionOf(page[page.length - 1]!.row, page[page.length - 1]!.index));
  // The scan's budget ran out before the page was full: the next page starts after the last candidate looked at.
  else if (!exhausted && last) nextCursor = encodeCandidateCursor(positionOf(last.row, last.index));
  const listings = await listingsWithRatings(db, await listedWithHosts(db, page.map((p) => p.row.id)), today);
  const startOf = new Map(page.map((p) => [p.row.id, p.start]));
  return {
    listings: listings.map((l) => ({ ...l, firstStart: startOf.get(l.activity.id) })),
    nextCursor,
    total: Math.min(found.length, WHEN_COUNT_CAP),
    capped: !exhausted || found.length > WHEN_COUNT_CAP,
  };
}

/** The days asked (as offsets from today in the city), the start minutes' window, and the seats a group must have left. */
interface Span {
  first: number;
  last: number;
  dates: string[];
  window: [number, number];
  people: number;
}

/**
 * Each activity's first open start on the dates asked, inside the window, with `people` spots
 * left for a group: by `openTimes`, the booking screens' rule, over what holds its host's time.
 */
export async function firstStarts(db: Db, list: RuleColumns[], span: Span, now: number): Promise<(FirstStart | null)[]> {
  if (!list.length) return [];
  const hostIds = [...new Set(list.map((a) => a.hostId))];
  const from = now + Math.max(0, span.first - 1) * DAY_MS;
  const to = now + (span.last + 2) * DAY_MS;
  const { held, own, outside } = busyOfHosts(db);
  const asked = { ids: dialect.listParam(hostIds), from, to, now };
  const [heldRows, blockRows, busyRows] = await Promise.all([held.execute(asked), own.execute(asked), outside.execute(asked)]);
  const heldOf = groupBy(heldRows);
  const blockedOf = groupBy([...blockRows, ...busyRows]);
  return list.map((activity) => {
    // A group as `groupOf` reads one: every group field set.
    const group = activity.format === "group" && activity.capacity && activity.pricePerPersonCents && activity.sessionMinutes ? { id: activity.id, capacity: activity.capacity } : null;
    const heldByHost = heldOf.get(activity.hostId) ?? [];
    const { sessions, others } = group ? heldSessions(group, heldByHost) : { sessions: [], others: heldByHost };
    const open = openTimes(activity, [...others, ...(blockedOf.get(activity.hostId) ?? [])], now, FLOW, span.last, sessions, span.first);
    for (const date of span.dates) {
      for (const hour of open.hours[date] ?? []) {
        const minute = hour * 60;
        if (minute < span.window[0] || minute >= span.window[1]) continue;
        const spotsLeft = open.spots ? (open.spots[date]?.[hour] ?? 0) : null;
        if (spotsLeft !== null && spotsLeft < span.people) continue;
        return { date, time: `${String(hour).padStart(2, "0")}:00`, spotsLeft };
      }
    }
    return null;
  });
}

const groupBy = <R extends { hostId: string }>(rows: R[]) => {
  const out = new Map<string, R[]>();
  for (const r of rows) (out.get(r.hostId) ?? out.set(r.hostId, []).get(r.hostId)!).push(r);
  return out;
};

/**
 * What holds the time of many hosts at once over [from, to), as `busyIntervals` reads it for one:
 * bookings holding their time (with a group's spots), days off and blocked times, outside busy times.
 */
const busyOfHosts = perDb((db) => {
  const [ids, from, to] = [sql.placeholder("ids"), sql.placeholder("from"), sql.placeholder("to")];
  const covers = (table: typeof bookings | typeof hostBlocks | typeof externalBusy) => and(dialect.inJsonList(table.hostId, ids), lt(table.startsAt, to), gt(table.endsAt, from));
  return {
    held: db
      .select({ hostId: bookings.hostId, ...heldColumns })
      .from(bookings)
      // The statuses that can hold time, said again as a list the host index reads (host, status,
      // start), so each host's bookings are looked up rather than every booking of those statuses.
      .where(and(covers(bookings), inArray(bookings.status, [...HOLDING, "awaiting_payment"]), holdsTime(sql.placeholder("now"))))
      .prepare(),
    own: db.select({ hostId: hostBlocks.hostId, startsAt: hostBlocks.startsAt, endsAt: hostBlocks.endsAt }).from(hostBlocks).where(covers(hostBlocks)).prepare(),
    outside: db.select({ hostId: externalBusy.hostId, startsAt: externalBusy.startsAt, endsAt: externalBusy.endsAt }).from(externalBusy).where(covers(externalBusy)).prepare(),
  };
});

/**
 * The SQL of the busy-times reads with their parameters' values, for query-plan checks
 * (`bun run bench`): the hosts `hostIds` over [from, to) at `now`.
 */
export function busySql(db: Db, hostIds: string[], from: number, to: number, now: number): { name: string; sql: string; params: unknown[] }[] {
  const values: Record<string, unknown> = { ids: dialect.listParam(hostIds), from, to, now };
  return Object.entries(busyOfHosts(db)).map(([name, statement]) => {
    const q = statement.getQuery();
    return { name, sql: q.sql, params: q.params.map((p) => (p && typeof p === "object" && "name" in p ? values[(p as { name: string }).name] : p)) };
  });
}

/** A found page as cards, made once per (cached) page: each card says its first matching start. */
export const foundCards = madeOnce(({ listings, ...rest }: FoundPage): { cards: ActivityCard[]; nextCursor: string | null; total: number; capped: boolean } => ({
  cards: listings.map((l) => (l.firstStart ? { ...activityCard(l), firstStart: l.firstStart } : activityCard(l))),
  ...rest,
}));
