import { one, readCache } from "../../db/client";
import { madeOnce } from "../../shared/memo";
import { and, asc, count, desc, eq, gt, inArray, isNotNull, ne, notInArray, or, sql } from "drizzle-orm";
import { uuidLike } from "../../lib/validation";
import { alias } from "drizzle-orm/sqlite-core";
import { activities, bookings, ledgerEntries, messages, users, type Booking } from "../../db/schema";
import type { MessageRow } from "../events";
import { latestMessageId } from "./unread";
import type { Deps } from "../deps";
import { participantUser, publicUserColumns, type PublicUserSource } from "../profiles/serialize";
import { bookingDetails, bookingView, type BookingView } from "./serialize";
import { DomainError } from "../../lib/domain-error";
import { cityByName } from "../../lib/places";
import { hostOf } from "../activities/queries";
import { activityRating } from "../activities/queries";
import { publicUser } from "../profiles/serialize";
import type { Activity, User } from "../../db/schema";
import { busyIntervals } from "./availability";
import { groupOf, heldSessions, spotsBounds, spotsTaken } from "./sessions";
import { activityZone, DIALOG_DAYS, FLOWS, horizonOf, localNow, maxMinutesOf, openTimes, type Flow } from "./times";
import { parseDate } from "../../lib/time";
import type { SeatsOffer } from "../../shared/seats";

export interface HostRequest {
  id: string;
  activityTitle: string;
  guestName: string | null;
  guestPhoto: string | null;
  startsAtLocal: string;
  durationMinutes: number;
  /** What the booking is worth before the guest's service fee. */
  subtotalCents: number;
  /** What the guest pays (subtotal and service fee) and what the host earns: the two amounts the host is shown. */
  totalCents: number;
  hostEarningsCents: number;
  /** The currency of its amounts (ISO 4217, lower case). */
  currency: string;
  /** A group session's spots the request asks for (1 for a private booking), and whether it takes the session whole. */
  spots: number;
  privateGroup: boolean;
  createdAt: number;
}


/** A group activity's seats on the booking screens. */
export type DateTimeSeats = SeatsOffer;

/** What the date-time screen shows (/booking/{id}/date-time). */
export interface DateTimeData {
  activity: Activity;
  hostName: string;
  zone: string;
  viewerZoneDiffers: boolean;
  dates: string[];
  /** Per date, local minute ranges the host is busy. */
  busy: Record<string, [number, number][]>;
  now: { date: string; minute: number };
  minMinutes: number;
  /** The shortest booking one can start: the host's minimum, at least the screen's shortest duration. */
  shortest: number;
  maxMinutes: number;
  selected: { date: string; time: string; durationMinutes: number; spots: number; privateGroup: boolean };
  /** A group activity's seats: spots left per date and start hour (0: full), the capacity, the bounds of one booking, the prices. */
  seats: DateTimeSeats | null;
  error?: string;
}

/** Pending requests for a host's activities, newest first; the guest as a booking's other side sees them. */
export async function hostRequests(deps: Deps, hostId: string, limit?: number): Promise<{ requests: HostRequest[]; total: number }> {
  const where = and(eq(bookings.hostId, hostId), eq(bookings.status, "pending"));
  const query = deps.db
    .select({
      id: bookings.id,
      activityTitle: activities.title,
      guest: publicUserColumns,
      startsAtLocal: bookings.startsAtLocal,
      durationMinutes: bookings.durationMinutes,
      subtotalCents: bookings.subtotalCents,
      totalCents: bookings.totalCents,
      hostEarningsCents: bookings.hostEarningsCents,
      currency: bookings.currency,
      spots: bookings.spots,
      privateGroup: bookings.privateGroup,
      createdAt: bookings.createdAt,
    })
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(users, eq(users.id, bookings.guestId))
    .where(where)
    .orderBy(desc(bookings.createdAt));
  const [rows, total] = await Promise.all([limit ? query.limit(limit) : query, await one(deps.db.select({ n: count() }).from(bookings).where(where))]);
  const today = new Date(deps.now());
  const requests = rows.map((r): HostRequest => {
    const guest = participantUser(r.guest, today);
    return {
      id: r.id,
      activityTitle: r.activityTitle,
      guestName: guest.firstName,
      guestPhoto: guest.photo,
      startsAtLocal: r.startsAtLocal,
      durationMinutes: r.durationMinutes,
      subtotalCents: r.subtotalCents,
      totalCents: r.totalCents,
      hostEarningsCents: r.hostEarningsCents,
      currency: r.currency,
      spots: r.spots,
      privateGroup: r.privateGroup,
      createdAt: r.createdAt,
    };
  });
  return { requests, total: total?.n ?? 0 };
}

/** One booking of a group session as its host sees it: the guest's first name, the spots, the money. */
export interface RosterGuest {
  bookingId: string;
  firstName: string | null;
  spots: number;
  privateGroup: boolean;
  status: Booking["status"];
  /** What the guest pays and what the host earns from this booking. */
  totalCents: number;
  hostEarningsCents: number;
  currency: string;
}

/** A session of one of the host's group activities with spots held: who comes and how full it is. */
export interface HostSession {
  activityId: string;
  activityTitle: string;
  startsAt: number;
  startsAtLocal: string;
  durationMinutes: number;
  capacity: number;
  minToRun: number | null;
  /** Spots held (all of them once a private group holds the session), unpaid checkouts still holding theirs included. */
  taken: number;
  /** Of `taken`, the spots still held by a guest paying at checkout (not yet a request). */
  paying: number;
  /** The guests who asked or were accepted, first booked first. */
  guests: RosterGuest[];
}

/** A session of a host's group activity: its activity and its start. */
export const sessionKey = (s: { activityId: string; startsAt: number }) => `${s.activityId}@${s.startsAt}`;

/**
 * The host's group sessions with spots held (docs/decisions/0049), soonest first: those not yet
 * ended (`upcoming`), or those of the given sessions (`keys`, from `sessionKey`; the bookings
 * list's). What holds a spot is what `sessionTaken` counts; a guest still paying is counted but
 * not named, as the host hears of a booking once it is a request.
 */
export async function hostSessions(deps: Deps, hostId: string, which: { upcoming: true } | { keys: string[] }): Promise<HostSession[]> {
  const now = deps.now();
  if ("keys" in which && which.keys.length === 0) return [];
  const starts = "keys" in which ? [...new Set(which.keys.map((k) => Number(k.slice(k.lastIndexOf("@") + 1))))] : [];
  const rows = await deps.db
    .select({
      id: bookings.id,
      activityId: bookings.activityId,
      activityTitle: activities.title,
      capacity: activities.capacity,
      minToRun: activities.minToRun,
      startsAt: bookings.startsAt,
      startsAtLocal: bookings.startsAtLocal,
      durationMinutes: bookings.durationMinutes,
      spots: bookings.spots,
      privateGroup: bookings.privateGroup,
      status: bookings.status,
      totalCents: bookings.totalCents,
      hostEarningsCents: bookings.hostEarningsCents,
      currency: bookings.currency,
      guest: publicUserColumns,
    })
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(users, eq(users.id, bookings.guestId))
    .where(
      and(
        eq(bookings.hostId, hostId),
        isNotNull(bookings.pricePerPersonCents),
        "keys" in which ? inArray(bookings.startsAt, starts) : gt(bookings.endsAt, now),
        or(inArray(bookings.status, ["pending", "accepted", "completed"]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now))),
      ),
    )
    .orderBy(asc(bookings.startsAt), asc(bookings.createdAt))
    .limit(1000);
  const wanted = "keys" in which ? new Set(which.keys) : null;
  const today = new Date(now);
  const sessions = new Map<string, HostSession & { held: { spots: number; privateGroup: boolean }[] }>();
  for (const r of rows) {
    const key = sessionKey(r);
    if (wanted && !wanted.has(key)) continue;
    let session = sessions.get(key);
    if (!session) {
      session = { activityId: r.activityId, activityTitle: r.activityTitle, startsAt: r.startsAt, startsAtLocal: r.startsAtLocal, durationMinutes: r.durationMinutes, capacity: r.capacity ?? 0, minToRun: r.minToRun, taken: 0, paying: 0, guests: [], held: [] };
      sessions.set(key, session);
    }
    session.held.push(r);
    if (r.status === "awaiting_payment") session.paying += r.spots;
    else session.guests.push({ bookingId: r.id, firstName: participantUser(r.guest, today).firstName, spots: r.spots, privateGroup: r.privateGroup, status: r.status, totalCents: r.totalCents, hostEarningsCents: r.hostEarningsCents, currency: r.currency });
  }
  return [...sessions.values()].map(({ held, ...session }) => ({ ...session, taken: spotsTaken(held, session.capacity || Number.MAX_SAFE_INTEGER) }));
}

/** The host's money in one currency, in its minor units. */
export interface CurrencyEarnings {
  currency: string;
  totalEarningsCents: number;
  pendingPayoutsCents: number;
  /** What the host owes from refunds made after a payout, not yet taken from their next payouts (docs/decisions/0051). */
  owedCents: number;
  completedBookings: number;
}

/**
 * The host's money (spec: totalEarnings, pendingPayouts, completedBookings), read from the ledger:
 * each completed booking wrote the host's share as `payout_pending`, and each share sent to the
 * host's payout account a `transfer` (less any `reverse`), or was withheld to settle the host's
 * debts (`debt_settled`); `owed` is what the host owes from refunds after a payout, until their
 * next payouts settle it (`owed_settled`, docs/decisions/0051). Amounts of different currencies are
 * never added: one sum per currency (`byCurrency`, most earned first); `completedBookings` counts them all.
 */
export async function hostEarnings(deps: Deps, hostId: string): Promise<{ byCurrency: CurrencyEarnings[]; completedBookings: number }> {
  const rows = await deps.db
    .select({
      currency: ledgerEntries.currency,
      kind: ledgerEntries.kind,
      total: sql<number>`coalesce(sum(${ledgerEntries.amountCents}), 0)`.mapWith(Number),
      // Completed bookings, each once: a refund's own share rows, or a cancellation's kept share, are no more bookings.
      completed: sql<number>`count(distinct case when ${bookings.status} = 'completed' then ${bookings.id} end)`.mapWith(Number),
    })
    .from(ledgerEntries)
    .innerJoin(bookings, eq(bookings.id, ledgerEntries.bookingId))
    .where(and(eq(bookings.hostId, hostId), inArray(ledgerEntries.kind, ["payout_pending", "transfer", "reverse", "debt_settled", "owed", "owed_settled"])))
    .groupBy(ledgerEntries.currency, ledgerEntries.kind);
  const currencies = [...new Set(rows.map((r) => r.currency))];
  const byCurrency = currencies.map((currency) => {
    const of = (kind: string) => rows.find((r) => r.currency === currency && r.kind === kind);
    const earned = Number(of("payout_pending")?.total ?? 0);
    const total = (kind: string) => Number(of(kind)?.total ?? 0);
    // Paid: what was sent (less what was taken back) and withheld to settle debts, less what the host owes back.
    const sent = total("transfer") - total("reverse") + total("debt_settled") - total("owed");
    const owedCents = Math.max(0, total("owed") - total("owed_settled"));
    return { currency, totalEarningsCents: earned, pendingPayoutsCents: Math.max(0, earned - sent), owedCents, completedBookings: Number(of("payout_pending")?.completed ?? 0) };
  });
  byCurrency.sort((a, b) => b.totalEarningsCents - a.totalEarningsCents || a.currency.localeCompare(b.currency));
  return { byCurrency, completedBookings: byCurrency.reduce((n, e) => n + e.completedBookings, 0) };
}

const guestUser = alias(users, "guest_user");
const hostUser = alias(users, "host_user");

function guestColumns() {
  return Object.fromEntries(Object.entries(publicUserColumns).map(([k]) => [k, guestUser[k as keyof typeof publicUserColumns]])) as { [K in keyof typeof publicUserColumns]: (typeof guestUser)[K] };
}
function hostColumns() {
  return Object.fromEntries(Object.entries(publicUserColumns).map(([k]) => [k, hostUser[k as keyof typeof publicUserColumns]])) as { [K in keyof typeof publicUserColumns]: (typeof hostUser)[K] };
}

const bookingColumns = () => ({
  booking: bookings,
  activity: { id: activities.id, title: activities.title, city: activities.city, photos: activities.photos, category: activities.category },
  guest: guestColumns(),
  host: hostColumns(),
});

function bookingsWith(deps: Deps) {
  return deps.db
    .select(bookingColumns())
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(guestUser, eq(guestUser.id, bookings.guestId))
    .innerJoin(hostUser, eq(hostUser.id, bookings.hostId));
}

export interface BookingListItem {
  view: BookingView;
  booking: Booking;
  activity: { id: string; title: string; city: string; photos: string[]; category: string };
}

/** Every booking a person is on, as guest or host, newest first. */
export async function bookingsOf(deps: Deps, userId: string, limit = 200): Promise<BookingListItem[]> {
  const rows = await bookingsWith(deps)
    .where(or(eq(bookings.guestId, userId), eq(bookings.hostId, userId)))
    .orderBy(desc(bookings.createdAt))
    .limit(limit);
  const today = new Date(deps.now());
  return rows.map((r) => ({ view: bookingView(r.booking, userId, r, today), booking: r.booking, activity: r.activity }));
}

export type InboxOrder = "newest" | "oldest";

export interface InboxRow {
  booking: Booking;
  activity: { id: string; title: string; city: string; photos: string[]; category: string };
  guest: PublicUserSource;
  host: PublicUserSource;
  /** The conversation's newest message, if it has one. */
  last: MessageRow | null;
  /** Last activity: the newest message's instant, else when the booking last changed, else when it was made. */
  activityAt: number;
}

/**
 * The bookings inbox (spec §2 "Bookings", §4 "Conversation"): every booking a person is on, as
 * guest or host, with its newest message, sorted by last activity. A host sees a booking once it
 * became a request (its first message, the request's, is written then): a guest still paying,
 * or one who left the checkout, has not asked them anything. The guest sees a checkout still
 * open (to finish paying), but not one that ended unpaid: a lapsed hold or a left checkout would
 * stay in the list for good as "Expired · No messages yet", with nothing to do about it.
 * Bookings made before messages were kept (imported, or the demo's past ones) show by their status.
 */
export async function inboxOf(deps: Deps, userId: string, order: InboxOrder, limit = 200): Promise<InboxRow[]> {
  const activityAt = sql<number>`coalesce(${messages.createdAt}, ${bookings.updatedAt}, ${bookings.createdAt})`.mapWith(Number);
  // Ended before it was ever a request (a lapsed hold, a left checkout): no request message.
  const wasRequest = or(notInArray(bookings.status, ["expired", "canceled"]), isNotNull(messages.id));
  const rows = await deps.db
    .select({ ...bookingColumns(), last: messages, activityAt })
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(guestUser, eq(guestUser.id, bookings.guestId))
    .innerJoin(hostUser, eq(hostUser.id, bookings.hostId))
    .leftJoin(messages, eq(messages.id, latestMessageId))
    .where(
      or(
        and(eq(bookings.guestId, userId), wasRequest),
        and(eq(bookings.hostId, userId), ne(bookings.status, "awaiting_payment"), wasRequest),
      ),
    )
    .orderBy(order === "oldest" ? asc(activityAt) : desc(activityAt), order === "oldest" ? asc(bookings.id) : desc(bookings.id))
    .limit(limit);
  return rows.map((r) => ({ booking: r.booking, activity: r.activity, guest: r.guest, host: r.host, last: r.last, activityAt: r.activityAt }));
}

/** One booking with its activity and people, for one of its two sides; 404 for anyone else. */
export async function bookingOf(deps: Deps, userId: string, bookingId: string) {
  if (!uuidLike(bookingId)) throw new DomainError("booking.notFound", 404);
  const row = await one(bookingsWith(deps).where(eq(bookings.id, bookingId)));
  if (!row || (row.booking.guestId !== userId && row.booking.hostId !== userId)) throw new DomainError("booking.notFound", 404);
  return { ...row, view: bookingView(row.booking, userId, row, new Date(deps.now())), details: bookingDetails(row.booking, row) };
}

/** What the summary at the top of the booking screens shows: the activity, its host's first name and rating. */
export interface BookingSummary {
  activity: Activity;
  hostName: string;
  hostRating: Awaited<ReturnType<typeof activityRating>>;
}

export async function bookingSummary(deps: Deps, activity: Activity): Promise<BookingSummary> {
  const [host, rating] = await Promise.all([hostOf(deps, activity), activityRating(deps.db, activity.id)]);
  const hostView = host ? publicUser(host, new Date(deps.now())) : null;
  return { activity, hostName: hostView?.firstName ?? "", hostRating: rating };
}

/** The date-time screen: the bookable dates in the activity's zone, the host's busy times, and the choice shown. */
export async function dateTimeScreenData(deps: Deps, user: User, activity: Activity, pick: { date?: string; time?: string; durationMinutes?: number; spots?: number; privateGroup?: boolean }, error?: string): Promise<DateTimeData> {
  const { zone, dates, busy, now: today, shortest, spots, capacity } = await bookableTimes(deps, activity, "datetime", horizonOf(activity));
  const group = groupOf(activity);
  const viewerZone = cityByName(user.city)?.timeZone;
  return {
    ...(await bookingSummary(deps, activity)),
    zone,
    viewerZoneDiffers: !!viewerZone && viewerZone !== zone,
    dates,
    busy,
    now: today,
    minMinutes: activity.minDurationMinutes,
    shortest,
    maxMinutes: maxMinutesOf(activity),
    // Spots not chosen yet are the fewest one booking may take (one for a private activity).
    selected: { date: pick.date && dates.includes(pick.date) ? pick.date : "", time: pick.time ?? "", durationMinutes: pick.durationMinutes ?? 0, spots: pick.spots ?? (group ? spotsBounds(group).min : 1), privateGroup: pick.privateGroup ?? false },
    seats: group && spots && capacity ? { spots, capacity, ...spotsBounds(group), pricePerPersonCents: group.pricePerPersonCents, privateGroupPriceCents: group.privateGroupPriceCents } : null,
    error,
  };
}

/**
 * The open starts of an activity over the next `days` days, as the booking screens and
 * `GET /api/activities/{id}/times` read them: what holds the host's time and, for a group
 * activity, the spots its sessions hold.
 */
async function bookableTimes(deps: Deps, activity: Activity, flow: Flow, days: number, firstDay = 0) {
  const now = deps.now();
  // Only the days answered are read: from the day before the first (zones behind UTC) on.
  const skipped = Math.max(0, firstDay - 1);
  return openTimesWith(activity, await busyIntervals(deps, activity.hostId, now + skipped * DAY_MS, days - skipped), now, flow, days, firstDay);
}

/** `openTimes` from what holds the host's time (`busyIntervals`): a group's own sessions are counted in spots; the host's other bookings are busy times. */
function openTimesWith(activity: Activity, { bookings: held, blocked }: Awaited<ReturnType<typeof busyIntervals>>, now: number, flow: Flow, days: number, firstDay = 0) {
  const group = groupOf(activity);
  const { sessions, others } = group ? heldSessions(group, held) : { sessions: [], others: held };
  return openTimes(activity, [...others, ...blocked], now, flow, days, sessions, firstDay);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** One start of `GET /api/activities/{id}/times`: open or not, and a group's spots left (null for a private activity). */
export interface StartTime {
  start: string;
  open: boolean;
  spotsLeft: number | null;
}

/**
 * `GET /api/activities/{id}/times?date=YYYY-MM-DD`: the starts of that day in the activity's
 * zone that its weekly hours allow (on the date-time screen's hours), each open or not and, for a
 * group, with its spots left. The screens read the same `openTimes`. A day outside the activity's
 * horizon, or past, has no open start.
 */
export async function startTimesOn(deps: Deps, activity: Activity, date: string): Promise<StartTime[]> {
  const day = parseDate(date);
  if (!day) throw new DomainError("booking.dateInvalid", 400, { fields: { date: "booking.dateInvalid" } });
  // Worked out for that day alone.
  const today = parseDate(localNow(activityZone(activity), deps.now()).date)!;
  const until = today.until(day, { largestUnit: "days" }).days;
  const day0 = Math.max(0, Math.min(horizonOf(activity), until));
  const open = await bookableTimes(deps, activity, "datetime", day0, day0);
  const rules = FLOWS.datetime;
  const key = day.toString();
  const openHours = new Set(open.hours[key] ?? []);
  const weekday = day.dayOfWeek - 1;
  const out: StartTime[] = [];
  for (let hour = rules.firstHour; hour <= rules.lastHour; hour++) {
    const from = hour * 60;
    const inside = !activity.weeklyHours || (activity.weeklyHours[weekday] ?? []).some(([a, b]) => from >= a && from + open.shortest <= b);
    if (!inside) continue;
    const left = open.spots ? (open.spots[key]?.[hour] ?? 0) : null;
    out.push({ start: `${String(hour).padStart(2, "0")}:00`, open: openHours.has(hour), spotsLeft: left === null ? null : openHours.has(hour) || left === 0 ? left : 0 });
  }
  return out;
}

/** The booking dialog's choices: the open dates of the next 30 days and, per date, its open start hours. */
export interface DialogTimes {
  today: string;
  dates: string[];
  hours: Record<string, number[]>;
  /** Per date and open start hour, the most minutes a booking may run from it (a private activity's). */
  longest: Record<string, Record<number, number>>;
  /** A group activity's seats: spots left per date and start hour (0: full), and the bounds of one booking. */
  seats: DateTimeSeats | null;
}

/** What the booking dialog offers for an activity now (its dates, and per date the hours one can start at). */
export async function dialogTimes(deps: Deps, activity: Activity): Promise<DialogTimes> {
  return dialogTimesOf(activity, await bookableTimes(deps, activity, "dialog", DIALOG_DAYS));
}

function dialogTimesOf(activity: Activity, open: Awaited<ReturnType<typeof bookableTimes>>): DialogTimes {
  const group = groupOf(activity);
  const seats = group && open.spots ? { spots: open.spots, capacity: group.capacity, ...spotsBounds(group), pricePerPersonCents: group.pricePerPersonCents, privateGroupPriceCents: group.privateGroupPriceCents } : null;
  return { today: open.now.date, dates: open.dates, hours: open.hours, longest: open.longest, seats };
}

/**
 * What of an activity the booking dialog reads: its open times (`openTimes`, `groupOf`) and its
 * fields (views/bookings/Request.tsx `DialogFields`). Two activities alike in these have the same
 * dialog while their hosts are alike busy.
 */
const DIALOG_RULES = [
  "city",
  "minDurationMinutes",
  "maxDurationMinutes",
  "weeklyHours",
  "noticeMinutes",
  "horizonDays",
  "format",
  "sessionMinutes",
  "capacity",
  "pricePerPersonCents",
  "minSpots",
  "maxSpots",
  "privateGroupPriceCents",
  "minToRun",
  "minToRunHours",
  "currency",
] as const satisfies readonly (keyof Activity)[];
export type DialogRules = Pick<Activity, (typeof DIALOG_RULES)[number]>;

/** The activity's dialog rules alone (nothing else of it is there to be read), and their key: made once per read of the activity. */
const dialogRulesOf = madeOnce((activity: Activity): { rules: DialogRules; key: string } => {
  const rules = {} as Record<string, unknown>;
  for (const field of DIALOG_RULES) rules[field] = activity[field];
  return { rules: rules as DialogRules, key: JSON.stringify(rules) };
});

/**
 * What holds a host's time over the dialog's days, read once per database change (a booking, a
 * block, a busy time is a change) and hour, as the dialog's times were (`readCache`): a host's
 * activities and a page opened again ask for it alike. Equal reads stay the same object, and so
 * does their key (`busyKey`).
 */
const hostBusy = readCache<Awaited<ReturnType<typeof busyIntervals>>>(1000);
const busyKey = madeOnce(({ bookings: held, blocked }: Awaited<ReturnType<typeof busyIntervals>>) => (held.length || blocked.length ? JSON.stringify([held, blocked]) : ""));

/** Dialogs by what they are worked out from (`activityDialog`). */
const sharedDialogs = new Map<string, { times: DialogTimes; rules: DialogRules }>();
const SHARED_DIALOGS_MAX = 2000;

/**
 * The booking dialog of the activity page, for `hour` (the page's: its date in the activity's zone
 * and the UTC hour, within which the offer does not change). It is worked out from the activity's
 * dialog rules and what holds its host's time over the dialog's days, read now: activities alike
 * whose hosts are alike busy (a host's own activities; every host with nothing booked) have the
 * same dialog, worked out once per hour for all of them rather than for each activity's page.
 * `shared` is the key it is shared under, under which the page keeps its rendered fields.
 */
export async function activityDialog(deps: Deps, activity: Activity, hour: string): Promise<{ times: DialogTimes; rules: DialogRules; shared: string }> {
  const now = deps.now();
  const busy = await hostBusy(deps.db, `${activity.hostId}\u0000${hour}`, () => busyIntervals(deps, activity.hostId, now, DIALOG_DAYS));
  const { rules, key } = dialogRulesOf(activity);
  // A group's own bookings are its sessions' spots: then the dialog is its own.
  const sessionsOf = groupOf(activity) && busy.bookings.some((h) => h.activityId === activity.id) ? activity.id : "";
  const shared = `${hour}\u0000${key}\u0000${sessionsOf}\u0000${busyKey(busy)}`;
  let dialog = sharedDialogs.get(shared);
  if (!dialog) {
    // Worked out from the rules alone (and the id its sessions are counted by), so that nothing else of this activity can make it differ.
    const alone = { ...rules, id: sessionsOf } as Activity;
    dialog = { times: dialogTimesOf(alone, openTimesWith(alone, busy, now, "dialog", DIALOG_DAYS)), rules };
    if (sharedDialogs.size >= SHARED_DIALOGS_MAX) sharedDialogs.clear();
    sharedDialogs.set(shared, dialog);
  }
  return { ...dialog, shared };
}
