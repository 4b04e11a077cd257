import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from "ical-generator";
import type { OutgoingEmail } from "../ports/mail";

/**
 * Calendar invitations (RFC 5545 / iTIP, RFC 5546) carried by emails: an event in the wall clock
 * of its own IANA time zone (`DTSTART;TZID=Europe/Paris:20261201T140000`), with the VTIMEZONE
 * that zone needs written from the runtime's own zone data (Temporal), so no extra package and
 * no guess from the reader's calendar. `ical-generator` writes the text.
 */

export interface InviteEvent {
  /** Stable per event: a later CANCEL with the same UID removes what the REQUEST added. */
  uid: string;
  /** Grows with each change of one event (0 for the invitation, 1 for its cancellation). */
  sequence: number;
  /** The instant it starts and its length; written as the wall clock of `timeZone`. */
  startsAt: number;
  durationMinutes: number;
  timeZone: string;
  summary: string;
  description: string;
  location?: string | null;
  url?: string;
  organizer: { name: string; email: string };
  attendee?: { name: string; email: string };
  /** When this version was made (DTSTAMP). */
  stamp: number;
}

const YEAR_MS = 366 * 24 * 60 * 60 * 1000;

/** "+0100", "-0430", "+054500" (seconds only when there are some). */
function offsetText(offsetNs: number) {
  const total = Math.round(offsetNs / 1e9);
  const sign = total < 0 ? "-" : "+";
  const abs = Math.abs(total);
  const pad = (n: number) => String(n).padStart(2, "0");
  const seconds = abs % 60;
  return `${sign}${pad(Math.floor(abs / 3600))}${pad(Math.floor((abs % 3600) / 60))}${seconds ? pad(seconds) : ""}`;
}

/** A plain wall clock as iCalendar writes a local time: 20261201T140000. */
const localText = (p: Temporal.PlainDateTime) =>
  `${String(p.year).padStart(4, "0")}${String(p.month).padStart(2, "0")}${String(p.day).padStart(2, "0")}T${String(p.hour).padStart(2, "0")}${String(p.minute).padStart(2, "0")}${String(p.second).padStart(2, "0")}`;

/**
 * The VTIMEZONE of `timeZone` around an instant: each offset change from a year before to a
 * year after it (and the rule in force at the start of that window), as the zone database of
 * the runtime knows them. A zone that never changes gets one STANDARD part.
 */
export function vtimezone(timeZone: string, around: number): string {
  const windowStart = Temporal.Instant.fromEpochMilliseconds(around - YEAR_MS).toZonedDateTimeISO(timeZone);
  const windowEnd = around + YEAR_MS;
  const parts: string[] = [];
  const observance = (transition: Temporal.ZonedDateTime) => {
    const from = transition.subtract({ nanoseconds: 1 }).offsetNanoseconds;
    const to = transition.offsetNanoseconds;
    // The onset, as the wall clock read just before it (RFC 5545 §3.6.5).
    const onset = Temporal.Instant.fromEpochNanoseconds(transition.epochNanoseconds + BigInt(from)).toZonedDateTimeISO("UTC").toPlainDateTime();
    const type = to > from ? "DAYLIGHT" : "STANDARD";
    parts.push(`BEGIN:${type}`, `DTSTART:${localText(onset)}`, `TZOFFSETFROM:${offsetText(from)}`, `TZOFFSETTO:${offsetText(to)}`, `END:${type}`);
  };
  const before = windowStart.getTimeZoneTransition("previous");
  if (before) observance(before);
  for (let at = windowStart; ; ) {
    const next = at.getTimeZoneTransition("next");
    if (!next || next.epochMilliseconds > windowEnd) break;
    observance(next);
    at = next;
  }
  if (!parts.length) {
    const offset = offsetText(windowStart.offsetNanoseconds);
    parts.push("BEGIN:STANDARD", "DTSTART:19700101T000000", `TZOFFSETFROM:${offset}`, `TZOFFSETTO:${offset}`, "END:STANDARD");
  }
  return ["BEGIN:VTIMEZONE", `TZID:${timeZone}`, ...parts, "END:VTIMEZONE"].join("\r\n");
}

/**
 * An invitation (`REQUEST`) or its cancellation (`CANCEL`) of one event, as an email carries it
 * (`OutgoingEmail.calendar`). Start and end are the wall clock of the event's zone, with TZID.
 */
export function calendarInvite(method: "REQUEST" | "CANCEL", event: InviteEvent, filename = "invite.ics"): NonNullable<OutgoingEmail["calendar"]> {
  const cal = ical({
    prodId: { company: "Offline", product: "Offline", language: "EN" },
    method: method === "REQUEST" ? ICalCalendarMethod.REQUEST : ICalCalendarMethod.CANCEL,
  });
  // No calendar-wide zone (DTSTAMP stays UTC); the event's zone gets its VTIMEZONE.
  cal.timezone({ name: null, generator: (tz) => vtimezone(tz, event.startsAt) });
  const start = Temporal.Instant.fromEpochMilliseconds(event.startsAt).toZonedDateTimeISO(event.timeZone);
  cal.createEvent({
    id: event.uid,
    sequence: event.sequence,
    stamp: new Date(event.stamp),
    start,
    end: start.add({ minutes: event.durationMinutes }),
    timezone: event.timeZone,
    summary: event.summary,
    description: event.description,
    location: event.location || null,
    url: event.url ?? null,
    status: method === "REQUEST" ? ICalEventStatus.CONFIRMED : ICalEventStatus.CANCELLED,
    organizer: event.organizer,
    attendees: event.attendee
      ? [
          {
            name: event.attendee.name || undefined,
            email: event.attendee.email,
            role: ICalAttendeeRole.REQ,
            status: method === "REQUEST" ? ICalAttendeeStatus.ACCEPTED : ICalAttendeeStatus.DECLINED,
            rsvp: false,
          },
        ]
      : [],
  });
  return { method, filename, content: cal.toString() };
}

/** The address in a `From` such as `Offline <no-reply@example.com>`, and its name. */
export function mailboxOf(from: string): { name: string; email: string } {
  const m = /^\s*"?([^"<]*?)"?\s*<([^>]+)>\s*$/.exec(from);
  if (m) return { name: m[1]!.trim() || "Offline", email: m[2]!.trim() };
  return { name: "Offline", email: from.trim() };
}
