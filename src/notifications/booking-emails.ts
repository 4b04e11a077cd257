import type { Booking, BookingStatus } from "../../db/schema";
import type { Deps } from "../deps";
import { calendarInvite, mailboxOf } from "../email/calendar";
import type { BookingNews, DomainEvent } from "../events";
import type { Locale, MessageKey, Translate } from "../../lib/i18n";
import { formatMoney } from "../../lib/money";
import { formatLocal, localOf } from "../../lib/time";
import { refundWindows } from "../bookings/policies";
import { type PreferenceKey } from "./rules";
import { absolute, conversationPath, factsOf, meetingPointOf, queuePlanned, type Facts, type PlannedEmail } from "./planned-emails";

/**
 * The emails of a booking's life (docs/decisions/0025, 0034): a request, its answer, an expiry, a
 * cancellation, the time to review, with a calendar invitation and its cancellation, and the
 * host's payout. The same changes and recipients as the push notices of notices.ts.
 */

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
  const { instant = false, awaitingHost = false, notRunning = false } = how;
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
    // A group session's booking: how many spots it takes.
    if (booking.pricePerPersonCents !== null) rows.push({ label: t("notifications.email.detail.spots"), value: booking.privateGroup ? `${t("booking.spotsCount", { n: booking.spots })} · ${t("booking.privateGroupBadge")}` : t("booking.spotsCount", { n: booking.spots }) });
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
  const payment = (title: MessageKey, body: MessageKey, more: MessageKey[] = [], calendar?: "CANCEL", cents = booking.totalCents): PlannedEmail => ({
    to: f.guest,
    type: "paymentNotifications",
    key: `booking:${booking.id}:${to}:payment:${booking.guestId}`,
    kind: `booking.${to}.payment`,
    content: (t, locale) => {
      const params = { amount: money(cents, locale), activity: activity.title };
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
  /** The booking's cancellation policy, window by window on the activity's wall clock (docs/decisions/0050). */
  const policyLine = (t: Translate, locale: Locale) => {
    const windows = refundWindows(booking.cancellationPolicy, booking.startsAt, booking.timeZone);
    const deadline = (at: number) => formatLocal(localOf(at, booking.timeZone), locale, "dateTime");
    const last = windows.at(-1)!;
    const parts = [
      ...windows.map((w) => t(w.share === "full" ? "booking.refundFullUntil" : "booking.refundHalfUntil", { deadline: deadline(w.until) })),
      last.until < booking.startsAt ? t("booking.refundNoneAfter", { deadline: deadline(last.until) }) : t("booking.refundNoneAtStart"),
    ];
    const policy = t(`activity.policy.${booking.cancellationPolicy}`).toLocaleLowerCase(locale);
    return t("notifications.email.bookedGuest.policy", { policy, windows: parts.map((p, i) => (i === 0 ? p : p.charAt(0).toLocaleLowerCase(locale) + p.slice(1))).join("; ") });
  };
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
          // Booked instantly: confirmed when the guest paid, charged then, under the booking's policy.
          instant
            ? {
                subject: "notifications.email.bookedGuest.subject",
                heading: "notifications.email.bookedGuest.heading",
                body: "notifications.email.bookedGuest.body",
                more: (t, locale) => [...line("notifications.email.charged")(t, locale), policyLine(t, locale), t("notifications.email.calendarAdded")],
              }
            : {
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
      // The session was called off short of its minimum (docs/decisions/0049): the guest is told
      // why and what comes back (the calendar's invitation taken out once accepted); the host, whose.
      if (notRunning && (from === "pending" || from === "accepted")) {
        return [
          status(
            "guest",
            "activityUpdates",
            f.host.firstName,
            {
              subject: "notifications.email.notRunning.subject",
              heading: "notifications.email.notRunning.heading",
              body: "notifications.email.notRunning.body",
              more: from === "accepted" ? (t, locale) => [...line("notifications.email.refunded")(t, locale), t("notifications.email.calendarRemoved")] : line("notifications.email.released"),
            },
            from === "accepted" ? { calendar: "CANCEL" } : {},
          ),
          status(
            "host",
            "activityUpdates",
            f.guest.firstName,
            { subject: "notifications.email.notRunningHost.subject", heading: "notifications.email.notRunningHost.heading", body: "notifications.email.notRunningHost.body" },
            { amount: false },
          ),
        ];
      }
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
        // What the booking's policy gave back (docs/decisions/0050), possibly nothing.
        booking.refundedCents > 0
          ? payment("notifications.push.refunded.title", "notifications.push.refunded.body", ["notifications.email.calendarRemoved"], "CANCEL", booking.refundedCents)
          : payment("notifications.push.keptAll.title", "notifications.push.keptAll.body", ["notifications.email.calendarRemoved"], "CANCEL"),
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

/** The guest's email when the host gave part of their payment back, with the host's reason. */
async function refundEmail(deps: Deps, booking: Booking, amountCents: number, reason: string, key: string): Promise<PlannedEmail[]> {
  const f = await factsOf(deps, booking);
  if (!f) return [];
  return [
    {
      to: f.guest,
      type: "paymentNotifications",
      key: `refund:${key}:${booking.guestId}`,
      kind: "booking.refund",
      content: (t, locale) => {
        const amount = formatMoney(amountCents, locale, { currency: booking.currency });
        const date = formatLocal(booking.startsAtLocal, locale, "dateTime");
        return {
          subject: t("notifications.email.refund.subject", { amount, activity: f.activity.title }),
          heading: t("notifications.push.refund.title"),
          paragraphs: [t("notifications.email.refund.body", { name: f.host.firstName, amount, activity: f.activity.title, date })],
          details: [
            { label: t("notifications.email.detail.activity"), value: f.activity.title },
            { label: t("notifications.email.detail.when"), value: date },
            { label: t("notifications.email.detail.amount"), value: amount },
            { label: t("notifications.email.detail.reason"), value: reason },
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
      return await queuePlanned(deps, await bookingEmails(deps, event.booking, event.from, event.message?.senderId ?? null, { instant: event.instant, notRunning: event.message?.systemMessageType === "session_not_running" }));
    case "booking.awaitingHost":
      return await queuePlanned(deps, await bookingEmails(deps, event.booking, null, null, { awaitingHost: true }));
    case "payout.sent":
      return await queuePlanned(deps, await payoutEmail(deps, event.booking, event.amountCents));
    case "booking.refunded":
      return await queuePlanned(deps, await refundEmail(deps, event.booking, event.amountCents, event.reason, event.message?.id ?? `${event.booking.id}:${event.booking.refundedCents}`));
    default:
      return [];
  }
}
