import { one, writeTransaction } from "../../db/client";
import { eq } from "drizzle-orm";
import { activities, users, type Booking } from "../../db/schema";
import type { Deps } from "../deps";
import type { OutgoingEmail } from "../ports/mail";
import { composeEmail, queueEmail, type EmailContent } from "../email/outbox";
import { unsubscribeUrl } from "../email/unsubscribe";
import { chosenLocale, translator, type Locale, type Translate } from "../../lib/i18n";
import { preferencesOf } from "./service";
import { type PreferenceKey } from "./rules";
import { meetingPointText } from "../activities/rules";

/**
 * What every notification email is planned with (emails.ts): the people it may go to, the facts
 * of the booking it tells of, and the planned email itself, which `queuePlanned` writes as a job
 * in its recipient's language, under its preference, with the one-click unsubscribe of that
 * preference. The booking emails (booking-emails.ts) and the batched message emails
 * (message-emails.ts) are planned this way.
 */

/** A person an email may go to. */
export interface Person {
  id: string;
  email: string | null;
  locale: string | null;
  firstName: string;
  suspended: boolean;
}

export async function personOf(deps: Deps, id: string): Promise<Person | null> {
  const u = await one(deps.db
    .select({ id: users.id, email: users.email, locale: users.locale, firstName: users.firstName, name: users.name, suspendedAt: users.suspendedAt })
    .from(users)
    .where(eq(users.id, id)));
  if (!u) return null;
  return { id: u.id, email: u.email, locale: u.locale, firstName: u.firstName || u.name || "", suspended: u.suspendedAt !== null };
}

/** The recipient's chosen language, else the server's default. */
export const localeOf = (deps: Deps, person: Person): Locale => chosenLocale(person.locale, deps.config.defaultLanguage);

/** What a booking's emails say about it. */
export interface Facts {
  booking: Booking;
  activity: { title: string; meetingPoint: string | null; hasMeetingPoint: boolean; city: string; country: string; instantBooking: boolean };
  guest: Person;
  host: Person;
}

export async function factsOf(deps: Deps, booking: Booking): Promise<Facts | null> {
  const activity = await one(deps.db
    .select({ title: activities.title, meetingPoint: activities.meetingPoint, hasMeetingPoint: activities.hasMeetingPoint, city: activities.city, country: activities.country, instantBooking: activities.instantBooking })
    .from(activities)
    .where(eq(activities.id, booking.activityId)));
  const [guest, host] = await Promise.all([personOf(deps, booking.guestId), personOf(deps, booking.hostId)]);
  if (!activity || !guest || !host) return null;
  return { booking, activity, guest, host };
}

/**
 * The meeting point as the app shows it (views/activities/Detail.tsx): the exact place when the
 * host set one, with the city; null when it is to be shared in the conversation.
 */
export const meetingPointOf = (f: Facts) => meetingPointText(f.activity);

export const conversationPath = (bookingId: string) => `/bookings/${bookingId}`;
export const absolute = (deps: Deps, path: string) => `${deps.config.publicUrl}${path}`;

/** One email to plan: to whom, under which preference, its identity, and its content in any language. */
export interface PlannedEmail {
  to: Person;
  type: PreferenceKey;
  /** Its identity (the job key): queued twice, sent once. */
  key: string;
  /** What the email is, for the outbox and the log. */
  kind: string;
  content: (t: Translate, locale: Locale) => Omit<EmailContent, "locale" | "footer" | "unsubscribe">;
  calendar?: (t: Translate) => OutgoingEmail["calendar"];
  /** Sent instead when `type` is off but this one's preference is on (the payment part of a status change). */
  orElse?: PlannedEmail;
}

/** Writes the planned emails as jobs (synchronously) and returns their job keys. */
export async function queuePlanned(deps: Deps, planned: PlannedEmail[]): Promise<string[]> {
  const keys: string[] = [];
  for (const first of planned) {
    const person = first.to;
    if (!person.email || person.suspended) continue;
    const preferences = await preferencesOf(deps.db, person.id);
    const chosen = [first, first.orElse].find((p): p is PlannedEmail => !!p && p.type !== "marketingEmails" && preferences[p.type]);
    if (!chosen) continue;
    const locale = localeOf(deps, person);
    const t = translator(locale);
    const content: EmailContent = {
      ...chosen.content(t, locale),
      locale,
      footer: t("email.footer.notification"),
      unsubscribe: { label: t("email.unsubscribe"), url: unsubscribeUrl(deps, person.id, chosen.type) },
    };
    const email = composeEmail(deps, chosen.kind, person.email, content);
    const calendar = chosen.calendar?.(t);
    keys.push(await writeTransaction(deps.db, (tx) => queueEmail(tx, deps, chosen.key, calendar ? { ...email, calendar } : email)));
  }
  return keys;
}
