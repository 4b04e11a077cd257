import { writeTransaction, written } from "../../db/client";
import { cityByName } from "../../lib/places";
import { groupPriceFor, priceFor } from "../../shared/pricing";
import { localOf } from "../../lib/time";
import type { Db } from "../../db/client";
import { bookingCallKeys, ledgerKey, movementKey } from "../bookings/keys";
import { activities, bookings, ledgerEntries, reviews, testPaymentIntents, testPaymentOperations, users, type Activity, type BookingStatus } from "../../db/schema";

/**
 * Rows as the app would have written them, for the demo seed and the tests: a person with or
 * without a finished profile, an activity, a booking in any status (its prices and times worked
 * out the way booking does), a review. `insert` writes one directly, without going through the
 * screens (no HTTP calls, no image encoding).
 */

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
let counter = 0;
const next = () => `${Date.now().toString(36)}${(++counter).toString(36)}`;

type NewUser = typeof users.$inferInsert;
type NewActivity = typeof activities.$inferInsert;
type NewBooking = typeof bookings.$inferInsert;
type NewReview = typeof reviews.$inferInsert;
type NewLedgerEntry = typeof ledgerEntries.$inferInsert;

/** A person; `complete: false` stops after sign-up (no profile), as a new account is. */
export function userRow(overrides: Partial<NewUser> = {}, { complete = true } = {}): NewUser & { id: string } {
  const id = overrides.id ?? crypto.randomUUID();
  const handle = `person${next()}`;
  const base: NewUser & { id: string } = { id, email: `${handle}@example.com`, emailVerified: true };
  if (!complete) return { ...base, ...overrides, id };
  const photo = "/static/avatars/avatar-1.svg";
  const firstName = overrides.firstName ?? "Sam";
  const lastName = overrides.lastName ?? "Rivera";
  return {
    ...base,
    username: handle,
    firstName,
    lastName,
    name: `${firstName} ${lastName}`,
    dateOfBirth: "1990-05-15",
    photo,
    photos: [photo],
    profileImageUrl: photo,
    country: "United States",
    city: "New York",
    ...overrides,
    id,
  };
}

/** An activity hosted by `host`, in the host's city unless told otherwise. */
export function activityRow(host: { id: string; city?: string | null; country?: string | null }, overrides: Partial<NewActivity> = {}, now = Date.now()): NewActivity & { id: string } {
  return {
    id: crypto.randomUUID(),
    hostId: host.id,
    country: host.country ?? "United States",
    city: host.city ?? "New York",
    category: "sports",
    title: "Tennis for beginners",
    description: "Forehand, backhand and a friendly match.",
    hourlyRateCents: 4000,
    photos: [],
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
}

/**
 * A group activity (docs/decisions/0049) hosted by `host`: a session of 2 hours for up to 8
 * people at $30 each, as the activity form writes one (the hourly rate repeats the price per
 * person, a booking takes 1 to `capacity` spots unless told otherwise).
 */
export function groupActivityRow(host: { id: string; city?: string | null; country?: string | null }, overrides: Partial<NewActivity> = {}, now = Date.now()): NewActivity & { id: string } {
  const capacity = overrides.capacity ?? 8;
  const pricePerPersonCents = overrides.pricePerPersonCents ?? 3000;
  return activityRow(host, { format: "group", capacity, pricePerPersonCents, hourlyRateCents: pricePerPersonCents, sessionMinutes: 120, minSpots: 1, maxSpots: capacity, ...overrides }, now);
}

/** The activity fields a booking's price and length are read from. */
type BookedActivity = Pick<Activity, "id" | "hostId" | "city" | "hourlyRateCents" | "minDurationMinutes"> &
  Partial<Pick<Activity, "format" | "pricePerPersonCents" | "sessionMinutes" | "privateGroupPriceCents" | "currency" | "cancellationPolicy">>;

/**
 * What a booking of `activity` costs and how long it lasts, as booking works them out: by the
 * hour for a private activity; for a group, the session's length and `spots` × the price per
 * person (a private group: at least the private group's price), with the price per person kept.
 */
function pricedBooking(activity: BookedActivity, opts: { durationMinutes?: number; spots?: number; privateGroup?: boolean }) {
  if (activity.format === "group" && activity.pricePerPersonCents && activity.sessionMinutes) {
    const spots = opts.spots ?? 1;
    const privateGroup = opts.privateGroup ?? false;
    const price = groupPriceFor(activity.pricePerPersonCents, spots, privateGroup ? (activity.privateGroupPriceCents ?? null) : null);
    return { durationMinutes: opts.durationMinutes ?? activity.sessionMinutes, price, seats: { spots, pricePerPersonCents: activity.pricePerPersonCents, privateGroup } };
  }
  const durationMinutes = opts.durationMinutes ?? activity.minDurationMinutes;
  return { durationMinutes, price: priceFor(activity.hourlyRateCents, durationMinutes), seats: {} };
}

/**
 * A booking of `activity` by `guestId` starting at `startsAt` (epoch ms), with the server's
 * prices and the activity city's wall clock; of a group activity, `spots` of its session
 * (default 1) and `privateGroup`. Timestamps follow the status: answered bookings have
 * `respondedAt`, completed ones `completedAt`.
 */
export function bookingRow(
  activity: BookedActivity,
  opts: { guestId: string; startsAt: number; status?: BookingStatus; durationMinutes?: number; createdAt?: number } & Partial<NewBooking>,
): NewBooking & { id: string } {
  const { guestId, startsAt, status = "pending", createdAt = startsAt - 4 * DAY, ...overrides } = opts;
  const { durationMinutes, price, seats } = pricedBooking(activity, opts);
  const timeZone = cityByName(activity.city)?.timeZone ?? "UTC";
  const endsAt = startsAt + durationMinutes * 60 * 1000;
  const answered = status !== "pending";
  return {
    id: crypto.randomUUID(),
    guestId,
    hostId: activity.hostId,
    activityId: activity.id,
    status,
    startsAtLocal: localOf(startsAt, timeZone),
    timeZone,
    startsAt,
    endsAt,
    durationMinutes,
    hourlyRateCents: activity.hourlyRateCents,
    ...price,
    ...seats,
    // Its activity's currency, as a booking keeps it (a row without one is USD, as the column says).
    currency: activity.currency ?? "usd",
    // The policy its guest booked under, as a request copies it.
    cancellationPolicy: activity.cancellationPolicy ?? "flexible",
    message: "Hi! I'd love to join.",
    paymentProvider: "test",
    respondBy: Math.min(createdAt + DAY, startsAt),
    respondedAt: answered ? createdAt + HOUR : null,
    completedAt: status === "completed" ? endsAt : null,
    createdAt,
    updatedAt: status === "completed" ? endsAt : createdAt,
    ...overrides,
  };
}

type LedgerBooking = Pick<NewBooking, "totalCents" | "hostEarningsCents" | "createdAt" | "endsAt" | "paymentIntentId" | "paymentProvider" | "currency"> & { id: string };
type LedgerLine = [NewLedgerEntry["kind"], number, number, string | null];

/**
 * The ledger of an accepted booking that has not taken place yet, as the booking rules write it:
 * authorised when requested and captured in full an hour on (`capturedAt`), with the booking's
 * payment as the provider's reference.
 */
export function acceptedLedgerRows(booking: LedgerBooking, capturedAt?: number): NewLedgerEntry[] {
  return ledgerRowsOf(booking, acceptedLines(booking, capturedAt));
}

function acceptedLines(booking: LedgerBooking, capturedAt?: number): LedgerLine[] {
  const created = booking.createdAt ?? booking.endsAt;
  const intent = booking.paymentIntentId ?? null;
  return [
    ["authorize", booking.totalCents, created, intent],
    ["capture", booking.totalCents, capturedAt ?? created + HOUR, intent],
  ];
}

/**
 * The ledger of a completed booking, as the booking rules write it: authorised and captured in
 * full (with the booking's payment as the provider's reference), the platform's fee, the host's
 * share owed (`payout_pending`); with `paidOut`, the share already sent (`transfer`) too.
 */
export function completedLedgerRows(booking: LedgerBooking, { paidOut = false } = {}): NewLedgerEntry[] {
  const rows: LedgerLine[] = [
    ...acceptedLines(booking),
    ["platform_fee", booking.totalCents - booking.hostEarningsCents, booking.endsAt, null],
    ["payout_pending", booking.hostEarningsCents, booking.endsAt, null],
  ];
  if (paidOut) rows.push(["transfer", booking.hostEarningsCents, booking.endsAt, null]);
  return ledgerRowsOf(booking, rows);
}

function ledgerRowsOf(booking: LedgerBooking, rows: LedgerLine[]): NewLedgerEntry[] {
  return rows.map(([kind, amountCents, createdAt, providerRef]) => ({
    id: crypto.randomUUID(),
    bookingId: booking.id,
    kind,
    amountCents,
    // In the booking's currency (USD unless it says otherwise).
    currency: booking.currency ?? "usd",
    provider: booking.paymentProvider ?? "test",
    providerRef,
    idempotencyKey: ledgerKey(booking.id, kind),
    createdAt,
  }));
}

/**
 * A booking's payment at the built-in test provider, captured, as the test provider itself
 * stores one (src/payments/test-provider.ts): the intent, `succeeded`, and its capture
 * operation under the key the booking's capture is made with. Only for the test provider: a
 * Stripe payment cannot be written, it exists at Stripe or not at all.
 */
export function capturedTestPayment(
  booking: Pick<NewBooking, "guestId" | "activityId" | "totalCents" | "currency" | "startsAtLocal" | "durationMinutes" | "spots" | "pricePerPersonCents" | "privateGroup"> & { id: string },
  at: { createdAt: number; capturedAt: number },
) {
  // A group booking's payment names its spots, as the checkout's does.
  const seats = booking.pricePerPersonCents != null ? { spots: String(booking.spots ?? 1), ...(booking.privateGroup ? { privateGroup: "true" } : {}) } : {};
  const intentId = `tpi_${crypto.randomUUID().replace(/-/g, "")}`;
  const intent: typeof testPaymentIntents.$inferInsert = {
    id: intentId,
    clientSecret: `${intentId}_secret_${crypto.randomUUID().replace(/-/g, "")}`,
    status: "succeeded",
    amountCents: booking.totalCents,
    currency: booking.currency ?? "usd",
    metadata: {
      bookingId: booking.id,
      activityId: booking.activityId,
      guestId: booking.guestId,
      date: booking.startsAtLocal.slice(0, 10),
      time: booking.startsAtLocal.slice(11, 16),
      duration: String(booking.durationMinutes / 60),
      ...seats,
      flow: "checkout",
    },
    description: null,
    idempotencyKey: bookingCallKeys.intent(booking.id),
    createdAt: at.createdAt,
    updatedAt: at.capturedAt,
  };
  const capture: typeof testPaymentOperations.$inferInsert = {
    id: `top_${crypto.randomUUID().replace(/-/g, "")}`,
    kind: "capture",
    target: intentId,
    amountCents: booking.totalCents,
    idempotencyKey: movementKey(booking.id, "capture", 1),
    createdAt: at.capturedAt,
  };
  return { intent, capture };
}

/** A review of one side of a booking by the other: published when written unless `publishedAt: null` (still hidden). */
export function reviewRow(opts: { bookingId: string; reviewerId: string; reviewedUserId: string; activityId?: string | null; stars?: number; text?: string | null; createdAt?: number; publishedAt?: number | null }): NewReview & { id: string } {
  const createdAt = opts.createdAt ?? Date.now();
  return { id: crypto.randomUUID(), stars: 5, text: null, activityId: null, publishedAt: createdAt, ...opts, createdAt };
}

/** Writes rows straight into the database and returns them as read back. */
export function insert(db: Db) {
  return {
    user: (row: NewUser) => writeTransaction(db, (tx) => written(tx.insert(users).values(row).returning())),
    activity: (row: NewActivity) => writeTransaction(db, (tx) => written(tx.insert(activities).values(row).returning())),
    booking: (row: NewBooking) => writeTransaction(db, (tx) => written(tx.insert(bookings).values(row).returning())),
    review: (row: NewReview) => writeTransaction(db, (tx) => written(tx.insert(reviews).values(row).returning())),
    ledger: (rows: NewLedgerEntry[]) => writeTransaction(db, async (tx) => void (await tx.insert(ledgerEntries).values(rows))),
  };
}
