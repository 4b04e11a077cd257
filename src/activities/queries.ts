/**
 * Reading activities: browse, cards, ratings, a host's listings, and the lookups of the
 * activity page and of host management. Nothing here changes anything (service.ts does).
 */
import { dialect } from "../../db/dialect";
import { and, asc, avg, count, desc, eq, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import { literalLimit, perDb, perLimit, readCache, type Db, one } from "../../db/client";
import { activities, reviews, users, type Activity } from "../../db/schema";
import type { Deps } from "../deps";
import { uuidLike } from "../../lib/validation";
import { PAGE_SIZE } from "./input";
import { publicUser, publicUserColumns, type PublicUser, type PublicUserSource } from "../profiles/serialize";
import { reviewsOfActivity } from "../reviews/queries";
import { coverPhoto } from "./categories";
import { roundRating } from "../../lib/labels";
import { ageOn } from "../../shared/dates";

/** A listed activity with its host's public view and its rating, for the JSON API and for cards. */
export interface ActivityListing {
  activity: Activity;
  host: PublicUser;
  rating: { average: number | null; count: number };
}

/** What the browse and profile screens show of an activity: nothing more. */
export interface ActivityCard {
  id: string;
  createdAt: number;
  title: string;
  category: string;
  hourlyRateCents: number;
  /** Its prices' currency: each card shows its own (no conversion, no sum). */
  currency: string;
  /** A group (docs/decisions/0049) shows its price per person and its session length, not a rate by the hour. */
  group: { pricePerPersonCents: number; sessionMinutes: number; capacity: number } | null;
  cover: string;
  rating: number | null;
  reviewCount: number;
  host: { firstName: string | null; photo: string | null; age: number | null };
  /** With a date, time of day or people filter: the first start that matches (decision 0054). */
  firstStart?: FirstStart;
}

/** The first open start that matches browse's filters: its local date and time in the activity's zone, and a group's spots left there. */
export interface FirstStart {
  date: string;
  time: string;
  spotsLeft: number | null;
}

/**
 * What a card reads of an activity and its host: the browse page reads these columns alone
 * (`cardColumns`), a sixth of a listing's row.
 */
type CardField = "id" | "createdAt" | "title" | "category" | "hourlyRateCents" | "currency" | "format" | "pricePerPersonCents" | "sessionMinutes" | "capacity" | "photos";
export interface CardListing {
  activity: Pick<Activity, CardField>;
  host: Pick<PublicUser, "firstName" | "photo" | "age">;
  rating: ActivityListing["rating"];
}

export function activityCard({ activity, host, rating }: CardListing): ActivityCard {
  return {
    id: activity.id,
    createdAt: activity.createdAt,
    title: activity.title,
    category: activity.category,
    hourlyRateCents: activity.hourlyRateCents,
    currency: activity.currency,
    group: activityGroupPrice(activity),
    cover: coverPhoto(activity),
    rating: rating.average,
    reviewCount: rating.count,
    host: { firstName: host.firstName, photo: host.photo, age: host.age },
  };
}

/** A group activity's price per person, session length and capacity; null for a private activity. */
export function activityGroupPrice(activity: Pick<Activity, "format" | "pricePerPersonCents" | "sessionMinutes" | "capacity">): ActivityCard["group"] {
  if (activity.format !== "group" || !activity.pricePerPersonCents || !activity.sessionMinutes || !activity.capacity) return null;
  return { pricePerPersonCents: activity.pricePerPersonCents, sessionMinutes: activity.sessionMinutes, capacity: activity.capacity };
}

/** Where a page of results ends: the last card's creation time and id. */
export function encodeCursor(card: { createdAt: number; id: string }) {
  return Buffer.from(`${card.createdAt}_${card.id}`).toString("base64url");
}

function decodeCursor(cursor: string | undefined): { createdAt: number; id: string } | null {
  if (!cursor) return null;
  const m = /^(\d{1,15})_([0-9a-f-]{36})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m ? { createdAt: Number(m[1]), id: m[2]! } : null;
}

/**
 * The browse count stops here: a city with more listed activities shows "1,000+ activities
 * found", so a page costs the same with a thousand or a million of them (decision 0015).
 */
export const BROWSE_COUNT_CAP = 1000;

/** Listed: active, not archived, not hidden by an operator; spelled as the browse indexes' condition so SQLite uses them. */
const listed = sql`${dialect.isTrue(activities.active)} AND ${activities.archivedAt} IS NULL AND ${activities.hiddenAt} IS NULL`;

/**
 * The browse queries, prepared once per database: a page (with or without a category, first
 * page or after a cursor) on the partial browse indexes, the capped count over the same index,
 * and the ratings of a page's activities.
 */
const browseStatements = perDb((db) => {
  const where = (byCategory: boolean, after: boolean) =>
    and(
      eq(activities.city, sql.placeholder("city")),
      listed,
      byCategory ? eq(activities.category, sql.placeholder("category")) : undefined,
      after ? sql`(${activities.createdAt}, ${activities.id}) < (${sql.placeholder("afterCreatedAt")}, ${sql.placeholder("afterId")})` : undefined,
    );
  // A page of the filter's rows, newest first; the limit and the cap are written into the
  // statements, one per value (`literalLimit`).
  const inPage = <Query extends SQLiteSelect>(query: Query, byCategory: boolean, after: boolean, limit: number) =>
    query.where(where(byCategory, after)).orderBy(desc(activities.createdAt), desc(activities.id)).limit(literalLimit(limit));
  // With the host, as a listing reads them (the JSON API) or as a card does (`cardColumns`).
  const page = (byCategory: boolean, after: boolean) =>
    perLimit((limit) => inPage(db.select({ activity: activities, host: publicUserColumns }).from(activities).innerJoin(users, eq(users.id, activities.hostId)).$dynamic(), byCategory, after, limit).prepare());
  const cards = (byCategory: boolean, after: boolean) =>
    perLimit((limit) => inPage(db.select(cardColumns).from(activities).innerJoin(users, eq(users.id, activities.hostId)).$dynamic(), byCategory, after, limit).prepare());
  // count(*) over at most `cap` rows of the index: constant work however many match.
  const capped = (byCategory: boolean) =>
    perLimit((cap) =>
      db
        .select({ n: count() })
        .from(db.select({ one: sql`1`.as("one") }).from(activities).where(where(byCategory, false)).limit(literalLimit(cap)).as("listed"))
        .prepare(),
    );
  return {
    page: { all: page(false, false), allAfter: page(false, true), category: page(true, false), categoryAfter: page(true, true) },
    cards: { all: cards(false, false), allAfter: cards(false, true), category: cards(true, false), categoryAfter: cards(true, true) },
    count: { all: capped(false), category: capped(true) },
  };
});

/** The columns of `CardListing`: the host's date of birth for the age alone. */
const cardColumns = {
  activity: {
    id: activities.id,
    createdAt: activities.createdAt,
    title: activities.title,
    category: activities.category,
    hourlyRateCents: activities.hourlyRateCents,
    currency: activities.currency,
    format: activities.format,
    pricePerPersonCents: activities.pricePerPersonCents,
    sessionMinutes: activities.sessionMinutes,
    capacity: activities.capacity,
    photos: activities.photos,
  },
  host: { firstName: users.firstName, photo: users.photo, dateOfBirth: users.dateOfBirth },
};

/** Ratings (published reviews only) of many activities at once; the ids go in as one JSON array so the statement is prepared once. */
const ratingStatement = perDb((db) =>
  db
    .select({ activityId: reviews.activityId, stars: avg(reviews.stars), n: count() })
    .from(reviews)
    .where(and(dialect.inJsonList(reviews.activityId, sql.placeholder("ids")), isNotNull(reviews.publishedAt)))
    .groupBy(reviews.activityId)
    .prepare(),
);

/** The SQL of every browse statement, by name: for query-plan checks (tests, `bun run bench`). */
export function browseQueries(db: Db): Record<string, string> {
  const { page, cards, count } = browseStatements(db);
  return {
    ...Object.fromEntries(Object.entries(page).map(([name, q]) => [`page.${name}`, q(PAGE_SIZE + 1).getQuery().sql])),
    ...Object.fromEntries(Object.entries(cards).map(([name, q]) => [`cards.${name}`, q(PAGE_SIZE + 1).getQuery().sql])),
    ...Object.fromEntries(Object.entries(count).map(([name, q]) => [`count.${name}`, q(BROWSE_COUNT_CAP + 1).getQuery().sql])),
    ratings: ratingStatement(db).getQuery().sql,
  };
}

/** How many listed activities match, up to `cap`; `capped` when there are more. */
export interface BrowseTotal {
  total: number;
  capped: boolean;
}

/**
 * Bookable activities of a city, newest first, with their host and real average rating, a page
 * at a time (keyset paging on the browse index, so page 100 costs what page 1 does), and their
 * number counted up to `countCap` (BROWSE_COUNT_CAP): the JSON API's page (the screen reads
 * cards, `browseActivities`). Read once per database change (`browseCache`): the result is
 * shared, never modify it.
 */
export async function browseListings(
  db: Db,
  opts: BrowseOptions & { countCap?: number },
  today = new Date(),
): Promise<BrowsePage> {
  const cap = opts.countCap ?? BROWSE_COUNT_CAP;
  return await browseCache(db, pageKey(opts, cap, today), () => readBrowsePage(db, opts, cap, today));
}

type BrowsePage = { listings: ActivityListing[]; nextCursor: string | null } & BrowseTotal;

/** The UTC date of `at` (YYYY-MM-DD), written once a day rather than on every browse page. */
let lastDay = { day: Number.NaN, text: "" };
function utcDay(at: Date): string {
  const day = Math.floor(at.getTime() / 86_400_000);
  if (day !== lastDay.day) lastDay = { day, text: at.toISOString().slice(0, 10) };
  return lastDay.text;
}

/**
 * Browse pages are the same for every guest until an activity, host or review changes, so they
 * are read once per database change (`readCache`), for the most recent few hundred filters.
 */
const browseCache = readCache<BrowsePage>(500);

/** The capped count of each filter (city and category), shared by all its pages. */
const countCache = readCache<number>(500);

async function readBrowsePage(db: Db, opts: BrowseOptions, cap: number, today: Date): Promise<BrowsePage> {
  const after = decodeCursor(opts.cursor);
  const rows = await pageStatement(browseStatements(db).page, opts, after)(opts.limit + 1).execute(pageParams(opts, after));
  const list = await withRatings(db, rows.slice(0, opts.limit), today);
  return { listings: list, ...(await cappedTotal(db, opts, cap)), nextCursor: rows.length > opts.limit ? encodeCursor(list[list.length - 1]!.activity) : null };
}

type BrowseOptions = { city: string; category?: string; limit: number; cursor?: string };

/** A page's key in its read cache: ages on the cards change with the day, so the day is part of it. */
const pageKey = (opts: BrowseOptions, cap: number, today: Date) => [opts.city, opts.category ?? "", opts.cursor ?? "", opts.limit, cap, utcDay(today)].join("\u0000");

/** The statement of a page among a set's four: with or without a category, the first page or one after a cursor. */
const pageStatement = <Statement>(set: Record<"all" | "allAfter" | "category" | "categoryAfter", Statement>, opts: BrowseOptions, after: object | null) =>
  opts.category ? (after ? set.categoryAfter : set.category) : after ? set.allAfter : set.all;

const pageParams = (opts: BrowseOptions, after: { createdAt: number; id: string } | null) => ({
  city: opts.city,
  category: opts.category ?? "",
  afterCreatedAt: after?.createdAt ?? 0,
  afterId: after?.id ?? "",
});

/** How many listed activities the filter has, up to `cap`: every page of a filter has the same, read once per filter and database change. */
async function cappedTotal(db: Db, opts: BrowseOptions, cap: number): Promise<BrowseTotal> {
  const { count } = browseStatements(db);
  const filter = { city: opts.city, category: opts.category ?? "" };
  const key = [filter.city, filter.category, cap].join("\u0000");
  const counted = await countCache(db, key, async () => (await one((opts.category ? count.category : count.all)(cap + 1).execute(filter)))?.n ?? 0);
  return { total: Math.min(counted, cap), capped: counted > cap };
}

export type BrowseCardPage = { cards: ActivityCard[]; nextCursor: string | null } & BrowseTotal;

/**
 * A browse page as cards: a page of `browseListings`, but with only the columns a card reads
 * (`cardColumns`), a sixth of a listing's row. Read once per database change (`cardPageCache`); a
 * page read again that gives the same cards hands out the earlier page, so its cards stay the same
 * objects and views may keep what they render of them (Browse.tsx). Shared: never modify it.
 */
export async function browseActivities(db: Db, opts: BrowseOptions & { countCap?: number }, today = new Date()): Promise<BrowseCardPage> {
  const cap = opts.countCap ?? BROWSE_COUNT_CAP;
  return await cardPageCache(db, pageKey(opts, cap, today), () => readCardPage(db, opts, cap, today));
}

/**
 * Room for every browse page of a catalogue of 10,000 activities (about 1,050 pages in five
 * cities): a browse page is small as cards (the page's kept body and cards live as long as it).
 * With room for 500, pages let go were read, drawn and kept again, which cost more CPU and left
 * more memory to collect than keeping them (docs/decisions/0059).
 */
const cardPageCache = readCache<BrowseCardPage>(2000);

async function readCardPage(db: Db, opts: BrowseOptions, cap: number, today: Date): Promise<BrowseCardPage> {
  const after = decodeCursor(opts.cursor);
  const rows = await pageStatement(browseStatements(db).cards, opts, after)(opts.limit + 1).execute(pageParams(opts, after));
  const page = rows.slice(0, opts.limit);
  const ratingOf = await ratingsByActivity(db, page.map((r) => r.activity.id));
  return {
    cards: page.map(({ activity, host }) => activityCard({ activity, host: { firstName: host.firstName, photo: host.photo, age: ageOn(host.dateOfBirth, today) }, rating: ratingOf(activity.id) })),
    ...(await cappedTotal(db, opts, cap)),
    nextCursor: rows.length > opts.limit ? encodeCursor(page[page.length - 1]!.activity) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// Browse with filters (decision 0054): the candidates SQL can tell, in the page's order.

/** What SQL narrows a filtered browse to, before open starts are looked for. */
export interface CandidateFilter {
  city: string;
  category?: string;
  /** Price per hour (private) or per person (group: `hourly_rate_cents` repeats it), in the city's minor units. */
  maxPriceCents?: number;
  /** A group needs at least this many seats; a private activity always fits. */
  people?: number;
  /** Days from today (in the city) of the first date asked: the activity's horizon must reach it. */
  firstDayOffset?: number;
  /** Minutes from now to the last start asked: the activity's notice must be shorter. */
  noticeAtMost?: number;
  /**
   * The weekdays asked (0 Monday … 6 Sunday) and the start minutes' window [from, to): weekly
   * hours, where set, must have a range overlapping it on one of those days.
   */
  hours?: { weekdays: number[]; window: [number, number] };
  sort: "recommended" | "price" | "rating" | "newest";
}

/** Where a filtered page ends: after a card in creation order (keyset), or after so many candidates (price, rating). */
export type CandidateCursor = { createdAt: number; id: string } | { offset: number };

export function encodeCandidateCursor(cursor: CandidateCursor): string {
  return "offset" in cursor ? Buffer.from(`o${cursor.offset}`).toString("base64url") : encodeCursor(cursor);
}

export function decodeCandidateCursor(cursor: string | undefined): CandidateCursor | null {
  if (!cursor) return null;
  const m = /^o(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return m ? { offset: Number(m[1]) } : decodeCursor(cursor);
}

/** Published reviews' average and number per activity, for the order by rating. */
const ratingsOf = (db: Db) =>
  db
    .select({ activityId: reviews.activityId, stars: avg(reviews.stars).as("stars"), n: count().as("n") })
    .from(reviews)
    .where(isNotNull(reviews.publishedAt))
    .groupBy(reviews.activityId)
    .as("ratings");

function candidateWhere(f: CandidateFilter, after: CandidateCursor | null): SQL | undefined {
  return and(
    eq(activities.city, f.city),
    listed,
    f.category ? eq(activities.category, f.category) : undefined,
    f.maxPriceCents !== undefined ? lte(activities.hourlyRateCents, f.maxPriceCents) : undefined,
    f.people !== undefined && f.people > 1 ? or(sql`${activities.format} <> 'group'`, sql`${activities.capacity} >= ${f.people}`) : undefined,
    f.firstDayOffset !== undefined && f.firstDayOffset > 0 ? sql`${activities.horizonDays} >= ${f.firstDayOffset}` : undefined,
    f.noticeAtMost !== undefined ? lte(activities.noticeMinutes, Math.max(f.noticeAtMost, 0)) : undefined,
    f.hours ? weeklyHoursOverlap(f.hours.weekdays, f.hours.window) : undefined,
    after && "createdAt" in after ? sql`(${activities.createdAt}, ${activities.id}) < (${after.createdAt}, ${after.id})` : undefined,
  );
}

/** Weekly hours never set (any day, 8:00 to 22:00) or with a range overlapping the window on one of the weekdays. */
function weeklyHoursOverlap(weekdays: number[], [from, to]: [number, number]): SQL {
  const days = [...new Set(weekdays)].sort();
  return sql`(${activities.weeklyHours} IS NULL OR ${or(...days.map((d) => dialect.jsonPairsOverlap(activities.weeklyHours, d, from, to)))})`;
}

/** The candidates' statement: the browse index's order for recommended and newest, price or rating otherwise. */
function candidateQuery(db: Db, f: CandidateFilter, after: CandidateCursor | null, limit: number) {
  const where = candidateWhere(f, after);
  const offset = after && "offset" in after ? after.offset : 0;
  if (f.sort === "rating") {
    const r = ratingsOf(db);
    return db
      .select({ activity: activities, host: publicUserColumns })
      .from(activities)
      .innerJoin(users, eq(users.id, activities.hostId))
      .leftJoin(r, eq(r.activityId, activities.id))
      .where(where)
      // Rated first, best first; equal averages: more reviews first, then the newest (decision 0054).
      .orderBy(sql`coalesce(${r.stars}, -1) desc`, sql`coalesce(${r.n}, 0) desc`, desc(activities.createdAt), desc(activities.id))
      .limit(limit)
      .offset(offset);
  }
  const order = f.sort === "price" ? [asc(activities.hourlyRateCents), desc(activities.createdAt), desc(activities.id)] : [desc(activities.createdAt), desc(activities.id)];
  return db
    .select({ activity: activities, host: publicUserColumns })
    .from(activities)
    .innerJoin(users, eq(users.id, activities.hostId))
    .where(where)
    .orderBy(...order)
    .limit(limit)
    .offset(offset);
}

/**
 * A batch of up to `limit` candidates of a filtered browse after `after`, in the page's order,
 * with their hosts (ratings are read for the cards shown only, `listingsWithRatings`).
 */
export async function browseCandidates(db: Db, f: CandidateFilter, after: CandidateCursor | null, limit: number) {
  return await candidateQuery(db, f, after, limit);
}

/**
 * What the booking rule reads of an activity (`openTimes`, a group's seats), and where it stands
 * in the page's order: all a candidate is read with before it is known to match.
 */
export const ruleColumns = {
  id: activities.id,
  hostId: activities.hostId,
  city: activities.city,
  createdAt: activities.createdAt,
  format: activities.format,
  minDurationMinutes: activities.minDurationMinutes,
  maxDurationMinutes: activities.maxDurationMinutes,
  weeklyHours: activities.weeklyHours,
  noticeMinutes: activities.noticeMinutes,
  horizonDays: activities.horizonDays,
  sessionMinutes: activities.sessionMinutes,
  capacity: activities.capacity,
  pricePerPersonCents: activities.pricePerPersonCents,
  minSpots: activities.minSpots,
  maxSpots: activities.maxSpots,
  privateGroupPriceCents: activities.privateGroupPriceCents,
  minToRun: activities.minToRun,
  minToRunHours: activities.minToRunHours,
};
export type RuleColumns = { [K in keyof typeof ruleColumns]: Activity[K] };

/** The statement of `candidateRules`, in the page's order. */
function rulesQuery(db: Db, f: CandidateFilter, after: CandidateCursor | null, limit: number) {
  const where = candidateWhere(f, after);
  const offset = after && "offset" in after ? after.offset : 0;
  if (f.sort === "rating") {
    const r = ratingsOf(db);
    return db
      .select(ruleColumns)
      .from(activities)
      .leftJoin(r, eq(r.activityId, activities.id))
      .where(where)
      .orderBy(sql`coalesce(${r.stars}, -1) desc`, sql`coalesce(${r.n}, 0) desc`, desc(activities.createdAt), desc(activities.id))
      .limit(limit)
      .offset(offset);
  }
  const order = f.sort === "price" ? [asc(activities.hourlyRateCents), desc(activities.createdAt), desc(activities.id)] : [desc(activities.createdAt), desc(activities.id)];
  return db.select(ruleColumns).from(activities).where(where).orderBy(...order).limit(limit).offset(offset);
}

/** A batch of candidates with only what the booking rule reads (`ruleColumns`): most are checked and never shown. */
export async function candidateRules(db: Db, f: CandidateFilter, after: CandidateCursor | null, limit: number): Promise<RuleColumns[]> {
  return await rulesQuery(db, f, after, limit);
}

/** Activities by id (one JSON list parameter) with their hosts, prepared once per database. */
const withHostsStatement = perDb((db) =>
  db
    .select({ activity: activities, host: publicUserColumns })
    .from(activities)
    .innerJoin(users, eq(users.id, activities.hostId))
    .where(dialect.inJsonList(activities.id, sql.placeholder("ids")))
    .prepare(),
);

/** Listed activities by id, with their hosts, in the order of `ids` (a filtered page's cards). */
export async function listedWithHosts(db: Db, ids: string[]) {
  if (!ids.length) return [];
  const rows = await withHostsStatement(db).execute({ ids: dialect.listParam(ids) });
  const byId = new Map(rows.map((r) => [r.activity.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** How many activities SQL alone finds for these filters, up to `cap` (no open start is looked for). */
export async function countCandidates(db: Db, f: CandidateFilter, cap: number): Promise<number> {
  const row = await one(db.select({ n: count() }).from(db.select({ one: sql`1`.as("one") }).from(activities).where(candidateWhere(f, null)).limit(cap).as("listed")));
  return row?.n ?? 0;
}

/** The SQL of a browse by when's candidates statement (`candidateRules`), for query-plan checks (`bun run bench`). */
export function candidateSql(db: Db, f: CandidateFilter): { sql: string; params: unknown[] } {
  const q = rulesQuery(db, f, null, 25).toSQL();
  return { sql: q.sql, params: q.params };
}

/** Listings of these rows with their hosts' public view and their ratings, as browse cards read them. */
export async function listingsWithRatings(db: Db, rows: { activity: Activity; host: PublicUserSource }[], today: Date): Promise<ActivityListing[]> {
  return await withRatings(db, rows, today);
}

/** A host's listed activities, newest first. */
export async function hostListings(db: Db, hostId: string, limit: number, today = new Date()) {
  const where = and(eq(activities.hostId, hostId), eq(activities.active, true), isNull(activities.archivedAt), isNull(activities.hiddenAt));
  const [rows, total] = await Promise.all([
    db
      .select({ activity: activities, host: publicUserColumns })
      .from(activities)
      .innerJoin(users, eq(users.id, activities.hostId))
      .where(where)
      .orderBy(desc(activities.createdAt), desc(activities.id))
      .limit(limit),
    await one(db.select({ n: count() }).from(activities).where(where)),
  ]);
  return { listings: await withRatings(db, rows, today), total: total?.n ?? 0 };
}

/** A host's listed activities as cards. */
export async function hostActivities(db: Db, hostId: string, limit: number) {
  const { listings: list, total } = await hostListings(db, hostId, limit);
  return { cards: list.map(activityCard), total };
}

async function withRatings(db: Db, rows: { activity: Activity; host: PublicUserSource }[], today: Date): Promise<ActivityListing[]> {
  const ratingOf = await ratingsByActivity(db, rows.map((r) => r.activity.id));
  return rows.map(({ activity, host }) => ({ activity, host: publicUser(host, today), rating: ratingOf(activity.id) }));
}

/** The ratings (published reviews) of these activities, read in one statement; none is `{ average: null, count: 0 }`. */
async function ratingsByActivity(db: Db, ids: string[]): Promise<(id: string) => ActivityListing["rating"]> {
  const rows = ids.length ? await ratingStatement(db).execute({ ids: dialect.listParam(ids) }) : [];
  const byId = new Map(rows.map((r) => [r.activityId, { average: roundRating(r.stars), count: r.n }]));
  return (id) => byId.get(id) ?? { average: null, count: 0 };
}

/** Average rating (one decimal) and count of an activity's reviews. */
export async function activityRating(db: Db, activityId: string) {
  const { average, total } = await reviewsOfActivity(db, activityId, 0);
  return { average, count: total };
}

/** An activity's reviews, newest first, with who wrote them. */
export async function activityReviews(db: Db, activityId: string, limit?: number) {
  return (await reviewsOfActivity(db, activityId, limit)).reviews;
}

/** The rating and the newest `limit` reviews of an activity, read together (the activity page). */
export async function activityRatingAndReviews(db: Db, activityId: string, limit: number) {
  const { average, total, reviews: list } = await reviewsOfActivity(db, activityId, limit);
  return { rating: { average, count: total }, reviews: list };
}

// ---------------------------------------------------------------------------------------------
// A host's own activities, for managing them.

/** The activity page's lookups, prepared once per database. */
const pageStatements = perDb((db) => {
  /** The listed activity with this id: not archived, not hidden by an operator, active. */
  const listedById = and(eq(activities.id, sql.placeholder("id")), listed);
  return {
    listed: db.select().from(activities).where(listedById).prepare(),
    host: db.select(publicUserColumns).from(users).where(eq(users.id, sql.placeholder("id"))).prepare(),
    listedWithHost: db.select({ activity: activities, host: publicUserColumns }).from(activities).innerJoin(users, eq(users.id, activities.hostId)).where(listedById).prepare(),
  };
});

/** A listed activity with its host (the activity page), in one read; undefined when there is none. */
export async function findListedActivityAndHost(deps: Deps, id: string) {
  if (!uuidLike(id)) return undefined;
  return one(pageStatements(deps.db).listedWithHost.execute({ id }));
}

/** A listed activity (not archived, not hidden by an operator), or undefined. */
export async function findListedActivity(deps: Deps, id: string) {
  if (!uuidLike(id)) return undefined;
  return one(pageStatements(deps.db).listed.execute({ id }));
}

/** An activity its host may edit (archived ones are gone for editing too). */
export async function findOwnActivity(deps: Deps, hostId: string, id: string) {
  const activity = await findListedActivity(deps, id);
  return activity && activity.hostId === hostId ? activity : undefined;
}

/** An activity's host, with only the columns their public view reads. */
export async function hostOf(deps: Deps, activity: Activity) {
  return one(pageStatements(deps.db).host.execute({ id: activity.hostId }));
}

/** A host's activities (archived ones left out), newest first. */
export async function ownActivities(deps: Deps, hostId: string, limit?: number) {
  const query = deps.db
    .select()
    .from(activities)
    .where(and(eq(activities.hostId, hostId), isNull(activities.archivedAt)))
    .orderBy(desc(activities.createdAt));
  return limit ? query.limit(limit) : query;
}

/** How many activities a host has (archived ones left out). */
export async function countOwnActivities(deps: Deps, hostId: string) {
  const row = await one(deps.db
    .select({ n: count() })
    .from(activities)
    .where(and(eq(activities.hostId, hostId), isNull(activities.archivedAt))));
  return row?.n ?? 0;
}
