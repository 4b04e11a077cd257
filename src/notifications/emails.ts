import { one, writeTransaction } from "../../db/client";
import { chronological } from "../conversations/order";
import { dialect } from "../../db/dialect";
import { and, eq, gte, lt, not } from "drizzle-orm";
import { activities, bookings, messages, users, type Booking, type BookingStatus } from "../../db/schema";
import type { Deps } from "../deps";
import { calendarInvite, mailboxOf } from "../email/calendar";
import type { OutgoingEmail } from "../email/mailer";
import { composeEmail, queueEmail, sendQueuedEmails, type EmailContent } from "../email/outbox";
import { unsubscribeUrl } from "../email/unsubscribe";
import type { BookingNews, DomainEvent } from "../events";
import { chosenLocale, translator, type Locale, type MessageKey, type Translate } from "../texts";
import { defineJob, scheduleJob } from "../jobs";
import { formatMoney } from "../lib/money";
import { formatLocal, localOf } from "../lib/time";
import { preview } from "./notices";
import { preferencesOf } from "./service";
import { type PreferenceKey } from "./rules";
import { meetingPointText } from "../activities/rules";

/**
 * The emails of notifications (docs/decisions/0025, 0034): the same changes, recipients and
 * preferences as the push notices of notices.ts, told by email to whoever has an address, so a
 * person without push still learns of every answer. Each is a durable email job written by the
 * listener right after the change commits (no wait before it), in the recipient's language, with
 * a one-click unsubscribe for its preference. A preference that is off sends neither push nor
 * email; `marketingEmails` sends nothing.
 *
 * Messages are batched: the first unread message from the other person in a ten-minute window
 * schedules one job per (recipient, booking, window), due `MESSAGE_EMAIL_DELAY_MS` after it; when
 * it runs, that window's messages still unread go out in one email, or none when they were all
 * read meanwhile.
 */

/** How long a new message waits, unread, before it is told by email (with those that follow it). */
export const MESSAGE_EMAIL_DELAY_MS = 10 * 60 * 1000;
/** How many messages one email quotes. */
const MESSAGES_QUOTED = 5;

/** A person an email may go to. */
interface Person {
  id: string;
  email: string | null;
  locale: string | null;
  firstName: string;
  suspended: boolean;
}

async function personOf(deps: Deps, id: string): Promise<Person | null> {
  const u = await one(deps.db
    .select({ id: users.id, email: users.email, locale: users.locale, firstName: users.firstName, name: users.name, suspendedAt: users.suspendedAt })
    .from(users)
    .where(eq(users.id, id)));
  if (!u) return null;
  return { id: u.id, email: u.email, locale: u.locale, firstName: u.firstName || u.name || "", suspended: u.suspendedAt !== null };
}

/** The recipient's chosen language, else the server's default. */
const localeOf = (deps: Deps, person: Person): Locale => chosenLocale(person.locale, deps.config.defaultLanguage);

/** What a booking's emails say about it. */
interface Facts {
  booking: Booking;
  activity: { title: string; meetingPoint: string | null; hasMeetingPoint: boolean; city: string; country: string; instantBooking: boolean };
  guest: Person;
  host: Person;
}

async function factsOf(deps: Deps, booking: Booking): Promise<Facts | null> {
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
const meetingPointOf = (f: Facts) => meetingPointText(f.activity);

const conversationPath = (bookingId: string) => `/bookings/${bookingId}`;
const absolute = (deps: Deps, path: string) => `${deps.config.publicUrl}${path}`;

/** One email to plan: to whom, under which preference, its identity, and its content in any language. */
interface PlannedEmail {
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
async function queuePlanned(deps: Deps, planned: PlannedEmail[]): Promise<string[]> {
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

/** The invitation (REQUEST) of an accepted booking, or its cancellation (CANCEL, same UID). */
function bookingInvite(deps: Deps, f: Facts, method: "REQUEST" | "CANCEL", t: Translate) {
  const { booking } = f;
  const url = absolute(deps, conversationPath(booking.id));
  const place = meetingPointOf(f);
  const description = [t("notifications.email.calendarDescription", { name: f.host.firstName, url })];
  if (!place) description.push(t("notifications.email.calendarMeetingLater", { name: f.host.firstName }));
  return calendarInvite(
    method,
    {
      uid: `booking-${booking.id}@${new URL(deps.config.publicUrl).hostname}`,
      sequence: method === "REQUEST" ? 0 : 1,
      startsAt: booking.startsAt,
      durationMinutes: booking.durationMinutes,
      timeZone: booking.timeZone,
      summary: f.activity.title,
      description: description.join("\n"),
      location: place,
      url,
      organizer: mailboxOf(deps.config.mail.from),
      attendee: f.guest.email ? { name: f.guest.firstName, email: f.guest.email } : undefined,
      stamp: deps.now(),
    },
    method === "REQUEST" ? "invite.ics" : "cancel.ics",
  );
}

/** The emails of a booking's status change: the push notices' changes and recipients (notices.ts). */
async function bookingEmails(deps: Deps, booking: Booking, from: BookingStatus | null, sender: string | null, how: BookingNews = {}): Promise<PlannedEmail[]> {
  const { instant = false, awaitingHost = false } = how;
  const to = booking.status;
  // A hold that lapsed or was given up before paying was never a request: nobody is told.
  if (from === "awaiting_payment" && to !== "pending") return [];
  if (!["pending", "accepted", "rejected", "expired", "canceled", "completed"].includes(to)) return [];
  const f = await factsOf(deps, booking);
  if (!f) return [];
  const { activity } = f;
  const when = (locale: Locale) => formatLocal(booking.startsAtLocal, locale, "dateTime");
  const money = (cents: number, locale: Locale) => formatMoney(cents, locale, { currency: booking.currency });
  const conversation = absolute(deps, conversationPath(booking.id));

  /** Activity, date and time, duration, the other person, and what the money is to this side. */
  const details = (t: Translate, locale: Locale, side: "guest" | "host", amount: boolean) => {
    const hours = booking.durationMinutes / 60;
    const rows = [
      { label: t("notifications.email.detail.activity"), value: activity.title },
      { label: t("notifications.email.detail.when"), value: when(locale) },
      { label: t("notifications.email.detail.duration"), value: t("booking.hoursCount", { n: hours }) },
      side === "guest"
        ? { label: t("notifications.email.detail.host"), value: f.host.firstName }
        : { label: t("notifications.email.detail.guest"), value: f.guest.firstName },
    ];
    if (amount) {
      rows.push(
        side === "guest"
          ? { label: t("notifications.email.detail.price"), value: money(booking.totalCents, locale) }
          : { label: t("notifications.email.detail.earnings"), value: money(booking.hostEarningsCents, locale) },
      );
    }
    return rows;
  };

  /** A status email: subject, heading and first sentence from the catalogue, then more sentences. */
  const status = (
    side: "guest" | "host",
    type: PreferenceKey,
    name: string,
    texts: { subject: MessageKey; heading: MessageKey; body: MessageKey; more?: (t: Translate, locale: Locale) => string[] },
    opts: { action?: MessageKey; url?: string; amount?: boolean; meetingPoint?: boolean; calendar?: "REQUEST" | "CANCEL"; orElse?: PlannedEmail } = {},
  ): PlannedEmail => ({
    to: side === "guest" ? f.guest : f.host,
    type,
    key: `booking:${booking.id}:${to}:${side === "guest" ? booking.guestId : booking.hostId}`,
    kind: `booking.${to}`,
    content: (t, locale) => {
      // The deadline of a request, on the activity's wall clock like every time the app shows.
      const deadline = formatLocal(localOf(booking.respondBy, booking.timeZone), locale, "dateTime");
      const params = { name, activity: activity.title, date: when(locale), deadline };
      const rows = details(t, locale, side, opts.amount ?? true);
      if (opts.meetingPoint) {
        rows.push({ label: t("notifications.email.detail.meetingPoint"), value: meetingPointOf(f) ?? t("notifications.email.meetingLater", { name: f.host.firstName }) });
      }
      return {
        subject: t(texts.subject, params),
        heading: t(texts.heading, params),
        paragraphs: [t(texts.body, params), ...(texts.more?.(t, locale) ?? [])],
        details: rows,
        action: { label: t(opts.action ?? "notifications.email.open"), url: opts.url ?? conversation },
      };
    },
    calendar: opts.calendar ? (t) => bookingInvite(deps, f, opts.calendar!, t) : undefined,
    orElse: opts.orElse,
  });

  /** The guest's payment email alone (the push notice's words), when only payment emails are wanted. */
  const payment = (title: MessageKey, body: MessageKey, more: MessageKey[] = [], calendar?: "CANCEL"): PlannedEmail => ({
    to: f.guest,
    type: "paymentNotifications",
    key: `booking:${booking.id}:${to}:payment:${booking.guestId}`,
    kind: `booking.${to}.payment`,
    content: (t, locale) => {
      const params = { amount: money(booking.totalCents, locale), activity: activity.title };
      return {
        subject: `${t(title)}: ${activity.title}`,
        heading: t(title),
        paragraphs: [t(body, params), ...more.map((k) => t(k))],
        details: details(t, locale, "guest", true),
        action: { label: t("notifications.email.open"), url: conversation },
      };
    },
    calendar: calendar ? (t) => bookingInvite(deps, f, calendar, t) : undefined,
  });

  const line = (key: MessageKey, cents = booking.totalCents) => (t: Translate, locale: Locale) => [t(key, { amount: money(cents, locale) })];
  const released = payment("notifications.push.released.title", "notifications.push.released.body");

  switch (to) {
    case "pending":
      // Instant booking (docs/decisions/0037): the accept follows at once, and the host hears of the
      // booking then; one that cannot be accepted reaches the host as a request ("booking.awaitingHost").
      if (activity.instantBooking && !awaitingHost) return [];
      return [
        status(
          "host",
          "bookingRequests",
          f.guest.firstName,
          {
            subject: "notifications.email.request.subject",
            heading: "notifications.email.request.heading",
            body: "notifications.email.request.body",
            more: (t) => (booking.message?.trim() ? [t("notifications.email.request.message", { name: f.guest.firstName, message: booking.message.trim() })] : []),
          },
          { action: "notifications.email.answer" },
        ),
      ];
    case "accepted":
      return [
        // Accepted on the host's behalf: booked, with nothing for the host to answer.
        ...(instant
          ? [
              status("host", "bookingRequests", f.guest.firstName, {
                subject: "notifications.email.instant.subject",
                heading: "notifications.email.instant.heading",
                body: "notifications.email.instant.body",
                more: (t) => (booking.message?.trim() ? [t("notifications.email.request.message", { name: f.guest.firstName, message: booking.message.trim() })] : []),
              }),
            ]
          : []),
        status(
          "guest",
          "bookingConfirmations",
          f.host.firstName,
          {
            subject: "notifications.email.accepted.subject",
            heading: "notifications.email.accepted.heading",
            body: "notifications.email.accepted.body",
            more: (t, locale) => [...line("notifications.email.charged")(t, locale), t("notifications.email.calendarAdded")],
          },
          {
            meetingPoint: true,
            calendar: "REQUEST",
            orElse: payment("notifications.push.captured.title", "notifications.push.captured.body"),
          },
        ),
      ];
    case "rejected":
      return [
        status(
          "guest",
          "bookingConfirmations",
          f.host.firstName,
          {
            subject: "notifications.email.declined.subject",
            heading: "notifications.email.declined.heading",
            body: "notifications.email.declined.body",
            more: line("notifications.email.released"),
          },
          { orElse: released },
        ),
      ];
    case "expired":
      return [
        status(
          "guest",
          "bookingConfirmations",
          f.host.firstName,
          {
            subject: "notifications.email.expiredGuest.subject",
            heading: "notifications.email.expiredGuest.heading",
            body: "notifications.email.expiredGuest.body",
            more: line("notifications.email.released"),
          },
          { orElse: released },
        ),
        status("host", "bookingRequests", f.guest.firstName, {
          subject: "notifications.email.expiredHost.subject",
          heading: "notifications.email.expiredHost.heading",
          body: "notifications.email.expiredHost.body",
        }),
      ];
    case "canceled":
      if (from === "pending") {
        return [
          status(
            "host",
            "bookingRequests",
            f.guest.firstName,
            { subject: "notifications.email.withdrawn.subject", heading: "notifications.email.withdrawn.heading", body: "notifications.email.withdrawn.body" },
            { amount: false },
          ),
        ];
      }
      if (from !== "accepted") return [];
      // The guest's calendar holds the invitation: whoever cancelled, their email takes it out.
      if (booking.canceledBy === "host") {
        return [
          status(
            "guest",
            "activityUpdates",
            f.host.firstName,
            {
              subject: "notifications.email.canceledByHost.subject",
              heading: "notifications.email.canceledByHost.heading",
              body: "notifications.email.canceledByHost.body",
              more: (t, locale) => [...line("notifications.email.refunded")(t, locale), t("notifications.email.calendarRemoved")],
            },
            {
              calendar: "CANCEL",
              orElse: payment("notifications.push.refunded.title", "notifications.push.refunded.body", ["notifications.email.calendarRemoved"], "CANCEL"),
            },
          ),
        ];
      }
      return [
        status(
          "host",
          "activityUpdates",
          f.guest.firstName,
          { subject: "notifications.email.canceledByGuest.subject", heading: "notifications.email.canceledByGuest.heading", body: "notifications.email.canceledByGuest.body" },
          { amount: false },
        ),
        payment("notifications.push.refunded.title", "notifications.push.refunded.body", ["notifications.email.calendarRemoved"], "CANCEL"),
      ];
    case "completed": {
      // Time to review the other side: the guest always, the host too when nobody marked it (automatic).
      const review = (side: "guest" | "host", name: string) =>
        status(
          side,
          "activityUpdates",
          name,
          { subject: "notifications.push.completed.title", heading: "notifications.push.completed.title", body: "notifications.email.completed.body" },
          { action: "notifications.email.review", url: absolute(deps, `/review?bookingId=${booking.id}&userType=${side}`), amount: false },
        );
      const planned = [review("guest", f.host.firstName)];
      if (sender === null) planned.push(review("host", f.guest.firstName));
      return planned;
    }
    default:
      return [];
  }
}

/** The host's email when their share of a completed booking was sent. */
async function payoutEmail(deps: Deps, booking: Booking, amountCents: number): Promise<PlannedEmail[]> {
  const f = await factsOf(deps, booking);
  if (!f) return [];
  return [
    {
      to: f.host,
      type: "paymentNotifications",
      key: `payout:${booking.id}:${booking.hostId}`,
      kind: "booking.payout",
      content: (t, locale) => {
        const amount = formatMoney(amountCents, locale, { currency: booking.currency });
        const date = formatLocal(booking.startsAtLocal, locale, "dateTime");
        return {
          subject: t("notifications.email.payout.subject", { amount }),
          heading: t("notifications.push.payout.title"),
          paragraphs: [t("notifications.email.payout.body", { amount, activity: f.activity.title, date })],
          details: [
            { label: t("notifications.email.detail.activity"), value: f.activity.title },
            { label: t("notifications.email.detail.when"), value: date },
            { label: t("notifications.email.detail.guest"), value: f.guest.firstName },
            { label: t("notifications.email.detail.amount"), value: amount },
          ],
          action: { label: t("notifications.email.open"), url: absolute(deps, conversationPath(booking.id)) },
        };
      },
    },
  ];
}

/** The emails an event calls for, written as jobs; returns their job keys. Synchronous. */
export async function queueEmailsFor(deps: Deps, event: DomainEvent): Promise<string[]> {
  switch (event.type) {
    case "booking.changed":
      return await queuePlanned(deps, await bookingEmails(deps, event.booking, event.from, event.message?.senderId ?? null, { instant: event.instant }));
    case "booking.awaitingHost":
      return await queuePlanned(deps, await bookingEmails(deps, event.booking, null, null, { awaitingHost: true }));
    case "payout.sent":
      return await queuePlanned(deps, await payoutEmail(deps, event.booking, event.amountCents));
    default:
      return [];
  }
}

// ---------------------------------------------------------------------------------------------
// Messages while away, batched

export interface MessageEmailPayload {
  bookingId: string;
  recipientId: string;
  /** When the first message of this batch was written: the email tells of those since. */
  since: number;
  /** The end of the batch's window (exclusive): later messages belong to the next batch. */
  until?: number;
}

/** What the message-email jobs of one (booking, recipient) have in common: their keys start with it. */
export const messageEmailKey = (bookingId: string, recipientId: string) => `email.messages:${bookingId}:${recipientId}`;

/**
 * The batch a message belongs to: the delay-long window of time it was written in. One job per
 * window: a message joins the job of its window while that job waits, and a message written
 * while a batch is being sent belongs to the next window, never to a job that is already past
 * it. A window's job is due a full delay after its first message, so the window has ended by then.
 */
const messageWindow = (createdAt: number) => Math.floor(createdAt / MESSAGE_EMAIL_DELAY_MS) * MESSAGE_EMAIL_DELAY_MS;

/**
 * Sends the messages of one conversation that its recipient still has not read, in one email:
 * those from the other person since the first that scheduled it. None were left unread (they
 * read the conversation meanwhile), or the recipient turned message notifications off: nothing.
 */
export const messageEmailJob = defineJob<MessageEmailPayload>({
  kind: "email.messages",
  lane: "email",
  async run({ bookingId, recipientId, since, until }, { deps }) {
    const booking = await one(deps.db.select().from(bookings).where(eq(bookings.id, bookingId)));
    if (!booking || (recipientId !== booking.guestId && recipientId !== booking.hostId)) return;
    const person = await personOf(deps, recipientId);
    if (!person?.email || person.suspended || !(await preferencesOf(deps.db, recipientId)).messages) return;
    const senderId = recipientId === booking.guestId ? booking.hostId : booking.guestId;
    const unread = await deps.db
      .select({ id: messages.id, content: messages.content })
      .from(messages)
      .where(
        and(
          eq(messages.bookingId, bookingId),
          eq(messages.senderId, senderId),
          eq(messages.isSystemMessage, false),
          gte(messages.createdAt, since),
          until === undefined ? undefined : lt(messages.createdAt, until),
          not(dialect.jsonListHas(messages.readBy, recipientId)),
        ),
      )
      .orderBy(...chronological);
    if (!unread.length) return;
    const f = await factsOf(deps, booking);
    if (!f) return;
    const sender = senderId === booking.guestId ? f.guest : f.host;
    const side = recipientId === booking.guestId ? "guest" : "host";
    const planned: PlannedEmail = {
      to: person,
      type: "messages",
      key: `messages:${bookingId}:${recipientId}:${since}`,
      kind: "messages",
      content: (t) => {
        const params = { name: sender.firstName, activity: f.activity.title, count: unread.length };
        const title = t(unread.length === 1 ? "notifications.email.messages.one" : "notifications.email.messages.many", params);
        const quoted = unread.slice(0, MESSAGES_QUOTED).map((m) => t("notifications.email.messages.quote", { text: preview(m.content) }));
        const more = unread.length > MESSAGES_QUOTED ? [t("notifications.email.messages.more", { count: unread.length - MESSAGES_QUOTED })] : [];
        return {
          subject: title,
          heading: title,
          preheader: quoted[0],
          paragraphs: [...quoted, ...more],
          details: [
            { label: t("notifications.email.detail.activity"), value: f.activity.title },
            { label: t("notifications.email.detail.when"), value: formatLocal(booking.startsAtLocal, localeOf(deps, person), "dateTime") },
            { label: t(side === "guest" ? "notifications.email.detail.host" : "notifications.email.detail.guest"), value: sender.firstName },
          ],
          action: { label: t("notifications.email.reply"), url: absolute(deps, conversationPath(bookingId)) },
        };
      },
    };
    sendQueuedEmails(deps, await queuePlanned(deps, [planned]));
  },
});

/**
 * A message to someone not reading that conversation: one email job per (booking, recipient),
 * due after the delay; later messages join the one already waiting.
 */
async function scheduleMessageEmail(deps: Deps, event: Extract<DomainEvent, { type: "message.created" }>) {
  const { booking, message } = event;
  if (message.isSystemMessage || !message.senderId) return;
  const recipient = message.senderId === booking.guestId ? booking.hostId : booking.guestId;
  if (!(await preferencesOf(deps.db, recipient)).messages) return;
  // Reading the conversation right now: the message is already on their screen.
  if (await deps.presence.isViewing(recipient, booking.id)) return;
  const window = messageWindow(message.createdAt);
  await writeTransaction(deps.db, (tx) =>
    scheduleJob(
      tx,
      messageEmailJob,
      { bookingId: booking.id, recipientId: recipient, since: message.createdAt, until: window + MESSAGE_EMAIL_DELAY_MS },
      { at: message.createdAt + MESSAGE_EMAIL_DELAY_MS, key: `${messageEmailKey(booking.id, recipient)}:${window}` },
    ),
  );
}

/**
 * Listens on the app's events. The emails of a change are written as jobs before this listener
 * waits for anything, so once a change is committed its emails are durable; then they are sent
 * at once, and retried by the job runner if that fails.
 */
export function listenForEmails(deps: Deps) {
  deps.events.on(async (event) => {
    sendQueuedEmails(deps, await queueEmailsFor(deps, event));
    if (event.type === "message.created") return scheduleMessageEmail(deps, event);
  });
}
