import { one, writeTransaction } from "../../db/client";
import { eq } from "drizzle-orm";
import { activities, bookings, users, type Booking, type BookingStatus } from "../../db/schema";
import type { Deps } from "../deps";
import type { BookingNews, DomainEvent } from "../events";
import { locales, translator, type Locale, type MessageKey } from "../../lib/i18n";
import { defineJob, scheduleJob } from "../jobs";
import { formatMoney } from "../../lib/money";
import { formatLocal } from "../../lib/time";
import type { Resolver } from "./destinations";
import { deliver, PUSH_TTL_SECONDS, queuePushes, type PushMessage } from "./push";
import { DomainError } from "../../lib/domain-error";
import type { TestInput } from "./input";
import { preferencesOf, subscriptionsOf } from "./service";
import { type PreferenceKey } from "./rules";

/**
 * What is sent to whom (docs/decisions/0025). Each committed change heard on `deps.events`
 * becomes notices: a recipient, the preference that governs it, a stable identity, the page a
 * click opens and its text in any language. A notice reaches every browser the recipient has
 * push notifications on in, unless they turned its preference off, in their language.
 */
export interface Notice {
  to: string;
  type: PreferenceKey;
  /** Identity of this notice for this recipient: queuing it twice sends it once. */
  key: string;
  url: string;
  tag: string;
  text: (locale: Locale) => { title: string; body: string };
  ttlSeconds?: number;
}

/** A reminder goes out this long before an accepted activity starts. */
export const REMINDER_BEFORE_MS = 24 * 60 * 60 * 1000;
const MESSAGE_PREVIEW = 140;

/** Where a click on a booking's notification leads: its conversation. */
const conversation = (bookingId: string) => `/bookings/${bookingId}`;

/** How a notice names a person: their first name, else their name. */
async function firstNameOf(deps: Deps, id: string) {
  const u = await one(deps.db.select({ firstName: users.firstName, name: users.name }).from(users).where(eq(users.id, id)));
  return u?.firstName || u?.name || "";
}

/** The names a booking's notices need: the activity's title and both people's first names. */
async function partiesOf(deps: Deps, booking: Booking) {
  const activity = await one(deps.db.select({ title: activities.title, instantBooking: activities.instantBooking }).from(activities).where(eq(activities.id, booking.activityId)));
  const [guest, host] = await Promise.all([firstNameOf(deps, booking.guestId), firstNameOf(deps, booking.hostId)]);
  return { activity: activity?.title ?? "", instant: activity?.instantBooking ?? false, guest, host };
}

/** A notice whose text is two catalogue entries filled with `params` (some of them per language). */
function notice(
  n: Omit<Notice, "text">,
  title: MessageKey,
  body: MessageKey,
  params: (locale: Locale) => Record<string, string | number>,
): Notice {
  return {
    ...n,
    text: (locale) => {
      const t = translator(locale);
      const values = params(locale);
      return { title: t(title, values), body: t(body, values) };
    },
  };
}

/**
 * The notices of a booking's status change, to whoever did not make it. `instant`: accepted on
 * the host's behalf; `awaitingHost`: an instant request the host now answers (booking.awaitingHost).
 */
async function bookingNotices(deps: Deps, booking: Booking, from: BookingStatus | null, sender: string | null, how: BookingNews = {}): Promise<Notice[]> {
  const { instant = false, awaitingHost = false, notRunning = false } = how;
  const to = booking.status;
  // A hold that lapsed or was given up before paying was never a request: nobody is told.
  if (from === "awaiting_payment" && to !== "pending") return [];
  const p = await partiesOf(deps, booking);
  const when = (locale: Locale) => formatLocal(booking.startsAtLocal, locale, "dateTime");
  const amount = (locale: Locale) => formatMoney(booking.totalCents, locale, { currency: booking.currency });
  const base = (recipient: string, type: PreferenceKey, topic: string, url = conversation(booking.id)) => ({
    to: recipient,
    type,
    key: `booking:${booking.id}:${to}:${topic}:${recipient}`,
    url,
    tag: `${topic === "payment" ? "payment" : "booking"}:${booking.id}`,
  });
  const toGuest = (type: PreferenceKey, title: MessageKey, body: MessageKey, topic = "status") =>
    notice(base(booking.guestId, type, topic), title, body, (l) => ({ name: p.host, activity: p.activity, date: when(l), amount: amount(l) }));
  const toHost = (type: PreferenceKey, title: MessageKey, body: MessageKey, topic = "status") =>
    notice(base(booking.hostId, type, topic), title, body, (l) => ({ name: p.guest, activity: p.activity, date: when(l), amount: amount(l) }));
  const released = () => toGuest("paymentNotifications", "notifications.push.released.title", "notifications.push.released.body", "payment");
  // What a cancellation gave back: everything, or what the booking's policy gave (docs/decisions/0050), possibly nothing.
  const refunded = () =>
    booking.refundedCents > 0
      ? notice(base(booking.guestId, "paymentNotifications", "payment"), "notifications.push.refunded.title", "notifications.push.refunded.body", (l) => ({
          activity: p.activity,
          amount: formatMoney(booking.refundedCents, l, { currency: booking.currency }),
        }))
      : toGuest("paymentNotifications", "notifications.push.keptAll.title", "notifications.push.keptAll.body", "payment");

  switch (to) {
    case "pending":
      // Instant booking (docs/decisions/0037): the accept follows at once, and the host hears of the
      // booking then; one that cannot be accepted reaches the host as a request ("booking.awaitingHost").
      if (p.instant && !awaitingHost) return [];
      return [toHost("bookingRequests", "notifications.push.request.title", "notifications.push.request.body")];
    case "accepted":
      return [
        instant
          ? toGuest("bookingConfirmations", "notifications.push.bookedGuest.title", "notifications.push.bookedGuest.body")
          : toGuest("bookingConfirmations", "notifications.push.accepted.title", "notifications.push.accepted.body"),
        toGuest("paymentNotifications", "notifications.push.captured.title", "notifications.push.captured.body", "payment"),
        // Accepted on the host's behalf: booked, with nothing for the host to answer.
        ...(instant ? [toHost("bookingRequests", "notifications.push.instant.title", "notifications.push.instant.body")] : []),
      ];
    case "rejected":
      return [toGuest("bookingConfirmations", "notifications.push.declined.title", "notifications.push.declined.body"), released()];
    case "expired":
      return [
        toGuest("bookingConfirmations", "notifications.push.expiredGuest.title", "notifications.push.expiredGuest.body"),
        toHost("bookingRequests", "notifications.push.expiredHost.title", "notifications.push.expiredHost.body"),
        released(),
      ];
    case "canceled":
      // The session was called off short of its minimum: the guest is told why, and what comes back.
      if (notRunning && (from === "pending" || from === "accepted")) {
        return [
          toGuest("activityUpdates", "notifications.push.notRunning.title", "notifications.push.notRunning.body"),
          from === "pending" ? released() : refunded(),
        ];
      }
      if (from === "pending") return [toHost("bookingRequests", "notifications.push.withdrawn.title", "notifications.push.withdrawn.body"), released()];
      if (from !== "accepted") return [];
      return [
        booking.canceledBy === "host"
          ? toGuest("activityUpdates", "notifications.push.canceled.title", "notifications.push.canceled.body")
          : toHost("activityUpdates", "notifications.push.canceled.title", "notifications.push.canceled.body"),
        refunded(),
      ];
    case "completed": {
      // Time to review the other side: the guest always, the host too when nobody marked it (automatic).
      const review = (recipient: string, userType: "guest" | "host", name: string) =>
        notice(
          base(recipient, "activityUpdates", "status", `/review?bookingId=${booking.id}&userType=${userType}`),
          "notifications.push.completed.title",
          "notifications.push.completed.body",
          () => ({ name, activity: p.activity }),
        );
      const notices = [review(booking.guestId, "guest", p.host)];
      if (sender === null) notices.push(review(booking.hostId, "host", p.guest));
      return notices;
    }
    default:
      return [];
  }
}

/** A message's text as a notification shows it: one line, cut at a word near 140 characters. */
export function preview(content: string) {
  const line = content.replace(/\s+/g, " ").trim();
  if (line.length <= MESSAGE_PREVIEW) return line;
  const cut = line.slice(0, MESSAGE_PREVIEW);
  const space = cut.lastIndexOf(" ");
  return `${(space > MESSAGE_PREVIEW / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The notices an event calls for (none for most). */
export async function noticesFor(deps: Deps, event: DomainEvent): Promise<Notice[]> {
  switch (event.type) {
    case "booking.changed":
      return bookingNotices(deps, event.booking, event.from, event.message?.senderId ?? null, { instant: event.instant, notRunning: event.message?.systemMessageType === "session_not_running" });
    case "booking.awaitingHost":
      return bookingNotices(deps, event.booking, null, null, { awaitingHost: true });
    case "message.created": {
      const { booking, message } = event;
      if (message.isSystemMessage || !message.senderId) return [];
      const recipient = message.senderId === booking.guestId ? booking.hostId : booking.guestId;
      // Reading the conversation right now: the message is already on their screen.
      if (await deps.presence.isViewing(recipient, booking.id)) return [];
      const p = await partiesOf(deps, booking);
      const sender = message.senderId === booking.guestId ? p.guest : p.host;
      return [
        {
          to: recipient,
          type: "messages",
          key: `message:${message.id}:${recipient}`,
          url: conversation(booking.id),
          tag: `messages:${booking.id}`,
          text: (locale) => ({ title: translator(locale)("notifications.push.message.title", { name: sender }), body: preview(message.content) }),
        },
      ];
    }
    case "reviews.published":
      return Promise.all(event.reviews.map(async (review) => {
        const reviewer = await firstNameOf(deps, review.reviewerId);
        return notice(
          { to: review.reviewedUserId, type: "reviews", key: `review:${review.id}`, url: "/reviews", tag: `review:${review.id}` },
          "notifications.push.review.title",
          "notifications.push.review.body",
          // A review published after its writer deleted their account names nobody (docs/decisions/0057).
          (locale) => ({ name: reviewer || translator(locale)("people.deletedUser"), stars: review.stars }),
        );
      }));
    case "booking.refunded": {
      const { booking, amountCents, reason } = event;
      const p = await partiesOf(deps, booking);
      return [
        notice(
          { to: booking.guestId, type: "paymentNotifications", key: `refund:${event.message?.id ?? `${booking.id}:${booking.refundedCents}`}`, url: conversation(booking.id), tag: `payment:${booking.id}` },
          "notifications.push.refund.title",
          "notifications.push.refund.body",
          (locale) => ({ name: p.host, amount: formatMoney(amountCents, locale, { currency: booking.currency }), activity: p.activity, reason: preview(reason) }),
        ),
      ];
    }
    case "payout.sent": {
      const { booking, amountCents } = event;
      const p = await partiesOf(deps, booking);
      return [
        notice(
          { to: booking.hostId, type: "paymentNotifications", key: `payout:${booking.id}`, url: "/host", tag: `payment:${booking.id}` },
          "notifications.push.payout.title",
          "notifications.push.payout.body",
          (locale) => ({ amount: formatMoney(amountCents, locale, { currency: booking.currency }), activity: p.activity }),
        ),
      ];
    }
    default:
      return [];
  }
}

/**
 * Sends notices: to every browser of each recipient who wants that kind, in the recipient's
 * language (their chosen one, else the language of the browser that subscribed).
 */
export async function send(deps: Deps, notices: Notice[]) {
  const pushes: Parameters<typeof queuePushes>[1] = [];
  for (const n of notices) {
    if (!(await preferencesOf(deps.db, n.to))[n.type]) continue;
    const subscriptions = await subscriptionsOf(deps.db, n.to);
    if (!subscriptions.length) continue;
    const chosen = (await one(deps.db.select({ locale: users.locale }).from(users).where(eq(users.id, n.to))))?.locale;
    const byLocale = new Map<Locale, PushMessage>();
    for (const s of subscriptions) {
      const locale = [chosen, s.locale].find((l): l is Locale => (locales as (string | null | undefined)[]).includes(l)) ?? deps.config.defaultLanguage;
      let message = byLocale.get(locale);
      if (!message) {
        message = { ...n.text(locale), url: n.url, tag: n.tag };
        byLocale.set(locale, message);
      }
      pushes.push({ key: `push:${n.key}:${s.id}`, subscriptionId: s.id, message, ttlSeconds: n.ttlSeconds });
    }
  }
  await queuePushes(deps, pushes);
}

/**
 * The day before an accepted activity, both sides are reminded. Scheduled when the booking is
 * accepted (one per booking, by its key); by the time it runs the booking may have been
 * cancelled, and then nothing is sent.
 */
export const reminderJob = defineJob<{ bookingId: string }>({
  kind: "notifications.reminder",
  async run({ bookingId }, { deps }) {
    const booking = await one(deps.db.select().from(bookings).where(eq(bookings.id, bookingId)));
    if (!booking || booking.status !== "accepted" || deps.now() >= booking.startsAt) return;
    const p = await partiesOf(deps, booking);
    // Worth showing until the activity starts, and no longer.
    const ttlSeconds = Math.max(60, Math.min(PUSH_TTL_SECONDS, Math.floor((booking.startsAt - deps.now()) / 1000)));
    const remind = (to: string, name: string): Notice =>
      notice(
        { to, type: "reminders", key: `reminder:${booking.id}:${to}`, url: conversation(booking.id), tag: `booking:${booking.id}`, ttlSeconds },
        "notifications.push.reminder.title",
        "notifications.push.reminder.body",
        (locale) => ({ activity: p.activity, name, time: formatLocal(booking.startsAtLocal, locale, "time") }),
      );
    await send(deps, [remind(booking.guestId, p.host), remind(booking.hostId, p.guest)]);
  },
});

/** Schedules the reminder of a booking just accepted, unless it starts too soon for one. */
async function scheduleReminder(deps: Deps, booking: Booking) {
  const at = booking.startsAt - REMINDER_BEFORE_MS;
  if (at <= deps.now()) return;
  await writeTransaction(deps.db, (tx) => scheduleJob(tx, reminderJob, { bookingId: booking.id }, { at, key: `notifications.reminder:${booking.id}` }));
}

/**
 * Listens on the app's events: runs after each change is committed, outside any transaction,
 * without holding up the answer to the person who made the change.
 */
export function listenForNotices(deps: Deps) {
  deps.events.on(async (event) => {
    if (event.type === "booking.changed" && event.booking.status === "accepted") await scheduleReminder(deps, event.booking);
    const notices = await noticesFor(deps, event);
    if (notices.length) await send(deps, notices);
  });
}

/**
 * How long the test notification waits for push services. When one of them did not take it, the
 * answer comes at this deadline whatever happened (refused at once, no connection, no answer), so
 * the answer and its time tell nothing about what listens at the address (docs/decisions/0032).
 */
export const TEST_DEADLINE_MS = 3_000;

/**
 * `POST /api/notifications/test` (`title`, `body`, both optional): sent at once to each of the
 * caller's browsers, whatever their preferences, so the answer can say whether it worked.
 * Returns how many browsers' push services took it: at once when all did, else at the deadline.
 */
export async function sendTest(deps: Deps, userId: string, { title, body }: TestInput, locale: Locale, options: { resolve?: Resolver } = {}): Promise<number> {
  const subscriptions = await subscriptionsOf(deps.db, userId);
  if (!subscriptions.length) throw new DomainError("notifications.notSubscribedBody", 409);
  const t = translator(locale);
  const message: PushMessage = { title: title || t("notifications.push.test.title"), body: body || t("notifications.push.test.body"), url: "/settings", tag: "test" };
  // Real time, not deps.now(): this bounds a wait on the network.
  const deadline = Date.now() + TEST_DEADLINE_MS;
  const results = await Promise.all(subscriptions.map((s) => deliver(deps, s, message, 60 * 60, { deadline, resolve: options.resolve })));
  if (results.some((r) => r !== "sent")) await Bun.sleep(Math.max(0, deadline - Date.now()));
  return results.filter((r) => r === "sent").length;
}
