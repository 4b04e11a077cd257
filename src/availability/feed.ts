import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, gte, inArray, or } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import ical, { ICalEventStatus } from "ical-generator";
import { writeTransaction, one } from "../../db/client";
import { activities, bookings, users, type User } from "../../db/schema";
import type { Deps } from "../deps";
import { vtimezone } from "../email/calendar";
import { chosenLocale, translator } from "../../lib/i18n";
import { meetingPointText } from "../activities/rules";
import { spotsTaken } from "../bookings/sessions";
import { zonedAt } from "../../lib/time";

/**
 * Private calendar feeds (docs/decisions/0037): every person may subscribe their calendar app to
 * `${PUBLIC_URL}/calendar/<userId>/<token>.ics`, the bookings they host or take part in. A
 * host's group session (docs/decisions/0049) is one event however many guests hold its spots,
 * titled with the count; a guest sees their own booking, with their spots.
 *
 * The token is an HMAC of the person's id and `users.calendarFeedVersion` under the session
 * secret: nothing secret is stored, the link can be shown again at any time, and changing the
 * number kills every earlier link. The number reads:
 * - `0`: never turned on;
 * - `n > 0`: on, links made with `n` work;
 * - `-n`: turned off after `n` (no link works). Turning on again takes `n + 1`, so a link from
 *   before it was turned off never comes back; a reset while on takes `n + 1` too.
 */

/** How far back the feed reaches: a month of past bookings. */
export const FEED_PAST_MS = 30 * 24 * 60 * 60 * 1000;

/** The token of a person's feed at `version` (only meaningful for a positive version). */
export function feedToken(secret: string, userId: string, version: number): string {
  return createHmac("sha256", secret).update(`calendar-feed:${userId}:${version}`).digest("base64url");
}

/** The feed's address for this person, or null while it is off. */
export function feedUrl(deps: Pick<Deps, "config" | "secrets">, user: Pick<User, "id" | "calendarFeedVersion">): string | null {
  if (user.calendarFeedVersion <= 0) return null;
  return `${deps.config.publicUrl}/calendar/${encodeURIComponent(user.id)}/${feedToken(deps.secrets.sessionSecret, user.id, user.calendarFeedVersion)}.ics`;
}

/** What the feed card shows (Settings, the host's Availability screen). */
export function calendarFeedState(deps: Pick<Deps, "config" | "secrets">, user: Pick<User, "id" | "calendarFeedVersion">): { url: string | null } {
  return { url: feedUrl(deps, user) };
}

export type FeedAction = "on" | "reset" | "off";

/**
 * Turns the feed on, makes a new link (reset), or turns it off; see the numbering above. Turning
 * on a feed that is on, or off one that is off, changes nothing. Returns the new number.
 */
export async function changeCalendarFeed(deps: Deps, userId: string, action: FeedAction): Promise<number> {
  return await writeTransaction(deps.db, async (tx) => {
    const row = await one(tx.select({ version: users.calendarFeedVersion }).from(users).where(eq(users.id, userId)));
    if (!row) return 0;
    const current = row.version;
    let next = current;
    if (action === "on" && current <= 0) next = Math.abs(current) + 1;
    else if (action === "reset") next = Math.abs(current) + 1;
    else if (action === "off" && current > 0) next = -current;
    if (next !== current) await tx.update(users).set({ calendarFeedVersion: next, updatedAt: deps.now() }).where(eq(users.id, userId));
    return next;
  });
}

/**
 * The person whose feed `file` (`<token>.ics`) opens, or null: unknown person, feed off, or a
 * token that is not this version's (compared in constant time).
 */
export async function feedOwner(deps: Deps, userId: string, file: string): Promise<User | null> {
  const m = /^([A-Za-z0-9_-]{43})\.ics$/.exec(file);
  if (!m) return null;
  const user = await one(deps.db.select().from(users).where(eq(users.id, userId)));
  if (!user || user.calendarFeedVersion <= 0 || user.suspendedAt !== null || user.deletedAt !== null) return null;
  const expected = Buffer.from(feedToken(deps.secrets.sessionSecret, user.id, user.calendarFeedVersion));
  const given = Buffer.from(m[1]!);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return user;
}

const host = alias(users, "feed_host");
const guest = alias(users, "feed_guest");

/** The person's bookings the feed shows: as host or guest, accepted or pending, ended at most a month ago. */
async function feedBookings(deps: Deps, userId: string) {
  return await deps.db
    .select({
      id: bookings.id,
      status: bookings.status,
      hostId: bookings.hostId,
      activityId: bookings.activityId,
      spots: bookings.spots,
      pricePerPersonCents: bookings.pricePerPersonCents,
      privateGroup: bookings.privateGroup,
      capacity: activities.capacity,
      startsAt: bookings.startsAt,
      endsAt: bookings.endsAt,
      durationMinutes: bookings.durationMinutes,
      timeZone: bookings.timeZone,
      updatedAt: bookings.updatedAt,
      title: activities.title,
      meetingPoint: activities.meetingPoint,
      hasMeetingPoint: activities.hasMeetingPoint,
      city: activities.city,
      country: activities.country,
      hostFirstName: host.firstName,
      hostName: host.name,
      guestFirstName: guest.firstName,
      guestName: guest.name,
    })
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(host, eq(host.id, bookings.hostId))
    .innerJoin(guest, eq(guest.id, bookings.guestId))
    .where(
      and(
        or(eq(bookings.hostId, userId), eq(bookings.guestId, userId)),
        inArray(bookings.status, ["accepted", "pending"]),
        gte(bookings.endsAt, deps.now() - FEED_PAST_MS),
      ),
    )
    .orderBy(bookings.startsAt);
}

const firstNameOf = (firstName: string | null, name: string | null) => firstName || name?.split(" ")[0] || "";

type FeedBooking = Awaited<ReturnType<typeof feedBookings>>[number];

/**
 * The person's feed as iCalendar text: one event per booking, in the wall clock of the booking's
 * own zone (TZID, with the VTIMEZONE that zone needs, as the booking emails write them), the
 * texts in the person's language. A group session the person hosts is one event for all its
 * bookings (`sessionEvent`); a guest's group booking says how many spots it holds.
 */
export async function calendarFeed(deps: Deps, user: User): Promise<string> {
  const locale = chosenLocale(user.locale, deps.config.defaultLanguage);
  const t = translator(locale);
  const domain = new URL(deps.config.publicUrl).hostname;
  const now = deps.now();
  const cal = ical({
    name: t("availability.feed.name"),
    prodId: { company: "Offline", product: "Offline", language: locale.toUpperCase() },
    ttl: 60 * 60,
  });
  cal.timezone({ name: null, generator: (tz) => vtimezone(tz, now) });
  const sessions = new Map<string, FeedBooking[]>();
  for (const b of await feedBookings(deps, user.id)) {
    const asHost = b.hostId === user.id;
    if (asHost && b.pricePerPersonCents !== null) {
      const key = `${b.activityId}:${b.startsAt}`;
      (sessions.get(key) ?? sessions.set(key, []).get(key)!).push(b);
      continue;
    }
    const other = asHost ? firstNameOf(b.guestFirstName, b.guestName) : firstNameOf(b.hostFirstName, b.hostName);
    const hostName = firstNameOf(b.hostFirstName, b.hostName);
    const url = `${deps.config.publicUrl}/bookings/${b.id}`;
    const place = meetingPointText(b);
    const description = [t(asHost ? "availability.feed.descriptionHost" : "availability.feed.descriptionGuest", { name: other, url })];
    if (b.pricePerPersonCents !== null) description.push(b.privateGroup ? t("availability.feed.yourPrivateGroup", { n: b.spots }) : t("availability.feed.yourSpots", { n: b.spots }));
    if (b.status === "pending") description.push(t("availability.feed.pending"));
    if (!place) description.push(asHost ? t("availability.feed.meetingLaterHost") : t("availability.feed.meetingLater", { name: hostName }));
    const start = zonedAt(b.startsAt, b.timeZone);
    cal.createEvent({
      id: `booking-${b.id}@${domain}`,
      stamp: new Date(now),
      lastModified: new Date(b.updatedAt),
      start,
      end: start.add({ minutes: b.durationMinutes }),
      timezone: b.timeZone,
      summary: other ? `${b.title} · ${other}` : b.title,
      description: description.join("\n"),
      location: place,
      url,
      status: b.status === "accepted" ? ICalEventStatus.CONFIRMED : ICalEventStatus.TENTATIVE,
    });
  }
  for (const held of sessions.values()) sessionEvent(cal, held, { t, domain, now, publicUrl: deps.config.publicUrl });
  return cal.toString();
}

/**
 * A group session the person hosts, as one event: its UID is the session's (activity and start),
 * so it stays the same event as guests come and go; its title counts the spots held ("Cooking
 * class · 5 of 8 spots", a private group filling them all), its description names each guest
 * with their spots and the requests still to answer. Confirmed once one booking is accepted.
 */
function sessionEvent(cal: ReturnType<typeof ical>, held: FeedBooking[], at: { t: ReturnType<typeof translator>; domain: string; now: number; publicUrl: string }) {
  const { t } = at;
  const first = held[0]!;
  const capacity = first.capacity ?? Math.max(...held.map((b) => b.spots));
  const taken = spotsTaken(held, capacity);
  const place = meetingPointText(first);
  const guests = held.map((b) => {
    const name = firstNameOf(b.guestFirstName, b.guestName);
    return b.privateGroup ? t("availability.feed.sessionPrivateGroup", { name, n: b.spots }) : t("availability.feed.sessionGuest", { name, n: b.spots });
  });
  const url = `${at.publicUrl}/bookings`;
  const description = [t("availability.feed.sessionGuests", { names: guests.join(", "), url })];
  const waiting = held.filter((b) => b.status === "pending").length;
  if (waiting) description.push(t("availability.feed.sessionPending", { n: waiting }));
  if (!place) description.push(t("availability.feed.meetingLaterGroup"));
  const start = zonedAt(first.startsAt, first.timeZone);
  cal.createEvent({
    id: `session-${first.activityId}-${first.startsAt}@${at.domain}`,
    stamp: new Date(at.now),
    lastModified: new Date(Math.max(...held.map((b) => b.updatedAt))),
    start,
    end: start.add({ minutes: Math.max(...held.map((b) => b.durationMinutes)) }),
    timezone: first.timeZone,
    summary: t("availability.feed.sessionTitle", { title: first.title, taken, capacity }),
    description: description.join("\n"),
    location: place,
    url,
    status: held.some((b) => b.status === "accepted") ? ICalEventStatus.CONFIRMED : ICalEventStatus.TENTATIVE,
  });
}
