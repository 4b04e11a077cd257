import ICAL from "ical.js";
import { DomainError } from "../../lib/domain-error";
import { zonedAt } from "../../lib/time";

/**
 * The busy times of an outside calendar's text (docs/decisions/0037): pure, and loaded by the
 * worker that reads it away from the server's thread (busy-times.worker.ts, decision 0043), so
 * this module imports nothing of the app but ical.js, the time helpers and the refusal's class.
 */

/** How far ahead its events block times. */
export const BUSY_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;
/** The most busy times kept per host (the earliest ones). */
export const BUSY_MAX_INTERVALS = 5000;
/** Recurrence steps walked per calendar before giving up on the rest (a rule every minute for ten years). */
const MAX_RECURRENCE_STEPS = 200_000;

/** The refusal of a text that is not an iCalendar: what the host reads on the card; `detail` for the log. */
const notACalendar = (detail: string) => new DomainError("availability.busy.error.notCalendar", 422, { log: detail });

export interface BusyInterval {
  startsAt: number;
  endsAt: number;
}

/** Whether the runtime knows this IANA zone name. */
function knownZone(name: string): boolean {
  try {
    Temporal.Now.instant().toZonedDateTimeISO(name);
    return true;
  } catch {
    return false;
  }
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** The instant of an ICAL.Time: UTC, its TZID (the runtime's zone data first), or floating in `fallbackZone`. */
function epochOf(time: ICAL.Time, tzid: string | null, fallbackZone: string): number {
  if (time.isDate) {
    return Temporal.PlainDate.from(`${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`).toZonedDateTime(fallbackZone).epochMilliseconds;
  }
  if (time.zone === ICAL.Timezone.utcTimezone || tzid === "UTC" || tzid === "Etc/UTC" || tzid === "Z") {
    return Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  }
  const wall = Temporal.PlainDateTime.from({ year: time.year, month: time.month, day: time.day, hour: time.hour, minute: time.minute, second: Math.min(time.second, 59) });
  if (tzid && knownZone(tzid)) return wall.toZonedDateTime(tzid, { disambiguation: "compatible" }).epochMilliseconds;
  // A zone the calendar defines itself (Outlook's "Pacific Standard Time"): its own VTIMEZONE.
  if (tzid && time.zone && time.zone !== ICAL.Timezone.localTimezone) return time.toUnixTime() * 1000;
  return wall.toZonedDateTime(fallbackZone, { disambiguation: "compatible" }).epochMilliseconds;
}

const propText = (component: ICAL.Component, name: string) => {
  const value = component.getFirstPropertyValue(name);
  return typeof value === "string" ? value.trim().toUpperCase() : "";
};

/** Events that do not make the host busy: free time (TRANSP:TRANSPARENT) and cancelled ones. */
const blocks = (component: ICAL.Component) => propText(component, "transp") !== "TRANSPARENT" && propText(component, "status") !== "CANCELLED";

const tzidOf = (component: ICAL.Component, name: string) => {
  const value = component.getFirstProperty(name)?.getParameter("tzid");
  return typeof value === "string" ? value : null;
};

/**
 * The busy times of an iCalendar text between `from` and `from + BUSY_AHEAD_MS`: recurring events
 * expanded (RRULE, RDATE, EXDATE, and changed occurrences by RECURRENCE-ID), free and cancelled
 * events left out, an all-day event blocking its whole date in `zone`, floating times read in
 * `zone`. The earliest `BUSY_MAX_INTERVALS`, merged where they overlap. A text that is not a
 * calendar is refused (`availability.busy.error.notCalendar`).
 */
export function busyTimes(text: string, zone: string, from: number): BusyInterval[] {
  let root: ICAL.Component;
  try {
    const parsed = ICAL.parse(text);
    root = new ICAL.Component(Array.isArray(parsed[0]) ? parsed[0] : parsed);
  } catch (err) {
    throw notACalendar((err as Error).message);
  }
  if (root.name !== "vcalendar") throw notACalendar(`its root is ${root.name}`);
  const until = from + BUSY_AHEAD_MS;
  const found: BusyInterval[] = [];
  const add = (startsAt: number, endsAt: number) => {
    if (endsAt > from && startsAt < until && endsAt > startsAt) found.push({ startsAt, endsAt });
  };

  // Masters and their changed occurrences (same UID, with RECURRENCE-ID).
  const vevents = root.getAllSubcomponents("vevent");
  const exceptions = new Map<string, ICAL.Component[]>();
  const masters: ICAL.Component[] = [];
  for (const c of vevents) {
    if (c.hasProperty("recurrence-id")) {
      const uid = String(c.getFirstPropertyValue("uid") ?? "");
      exceptions.set(uid, [...(exceptions.get(uid) ?? []), c]);
    } else masters.push(c);
  }
  const masterUids = new Set(masters.map((c) => String(c.getFirstPropertyValue("uid") ?? "")));
  // A changed occurrence whose series is not in the file stands alone.
  for (const [uid, list] of exceptions) if (!masterUids.has(uid)) masters.push(...list);

  let steps = 0;
  const spanOf = (item: ICAL.Event, start: ICAL.Time, end: ICAL.Time) => {
    const startTz = tzidOf(item.component, "dtstart");
    const endTz = tzidOf(item.component, "dtend") ?? startTz;
    const startsAt = epochOf(start, startTz, zone);
    let endsAt = epochOf(end, endTz, zone);
    // An all-day event without an end is that one day.
    if (start.isDate && endsAt <= startsAt) endsAt = zonedAt(startsAt, zone).add({ days: 1 }).epochMilliseconds;
    return { startsAt, endsAt };
  };

  for (const component of masters) {
    if (steps > MAX_RECURRENCE_STEPS || found.length > BUSY_MAX_INTERVALS * 4) break;
    let event: ICAL.Event;
    try {
      // Its own changed occurrences, handed in: left to itself, ical.js scans the whole file for
      // each event (a thousand events take a second) and relates every changed occurrence in it,
      // whatever its series.
      const own = component.hasProperty("recurrence-id") ? [] : (exceptions.get(String(component.getFirstPropertyValue("uid") ?? "")) ?? []);
      event = new ICAL.Event(component, { exceptions: own });
      if (!event.startDate) continue;
    } catch {
      continue;
    }
    try {
      if (!event.isRecurring()) {
        if (!blocks(component) || !event.endDate) continue;
        const { startsAt, endsAt } = spanOf(event, event.startDate, event.endDate);
        add(startsAt, endsAt);
        continue;
      }
      const iterator = event.iterator();
      for (let next = iterator.next(); next; next = iterator.next()) {
        if (++steps > MAX_RECURRENCE_STEPS) break;
        const details = event.getOccurrenceDetails(next);
        const startsAt = epochOf(details.startDate, tzidOf(details.item.component, "dtstart"), zone);
        if (startsAt >= until) break;
        if (!blocks(details.item.component)) continue;
        const span = spanOf(details.item, details.startDate, details.endDate);
        add(span.startsAt, span.endsAt);
      }
    } catch {
      // An event ical.js cannot expand is left out; the others still count.
      continue;
    }
  }
  found.sort((a, b) => a.startsAt - b.startsAt || a.endsAt - b.endsAt);
  // Overlapping and touching times become one.
  const merged: BusyInterval[] = [];
  for (const span of found) {
    const last = merged.at(-1);
    if (last && span.startsAt <= last.endsAt) last.endsAt = Math.max(last.endsAt, span.endsAt);
    else merged.push({ ...span });
  }
  return merged.slice(0, BUSY_MAX_INTERVALS);
}
