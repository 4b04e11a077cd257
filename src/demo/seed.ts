import { one } from "../../db/client";
import { count } from "drizzle-orm";
import { activities, bookings, cancellationPolicies, ledgerEntries, messages, reviews, testPaymentIntents, testPaymentOperations, users, type Activity, type CancellationPolicy } from "../../db/schema";
import { writeTransaction, type Db, type WriteTx } from "../../db/client";
import { acceptedLedgerRows, activityRow, bookingRow, capturedTestPayment, completedLedgerRows, groupActivityRow, reviewRow, userRow } from "./factories";
import type { PaymentProvider } from "../ports/payments";
import { cityByName, currencyOf } from "../../lib/places";

/**
 * A mix of cancellation policies across the demo's activities (docs/decisions/0050), the same on
 * every seed; the demo host's own stay flexible, the rule a first visitor meets in the tour.
 */
const demoPolicy = (host: { email?: string | null }, i: number): CancellationPolicy => (host.email === DEMO_HOST_EMAIL ? "flexible" : cancellationPolicies[i % cancellationPolicies.length]!);

/** The currency of a host's city: their activities are priced in it (USD for a place we do not know). */
const currencyOfHost = (host: { country?: string | null; city?: string | null }) => currencyOf(host.country, host.city) ?? "usd";
import { instantOf, todayIn } from "../../lib/time";
import { demoActivities, demoCities, demoGroupActivities, demoGuest, demoHosts, demoReviewTexts, DEMO_HOST_EMAIL, DEMO_PASSWORD, type DemoPerson } from "./demo-data";
import { categories } from "../activities/categories";
import { autoCompleteJob, schedule } from "../bookings/jobs";
import { jobKeys } from "../bookings/keys";
import { scheduleMinimum } from "../bookings/minimum";
import { AUTO_COMPLETE_MS } from "../bookings/service";
import type { WeeklyHours } from "../../shared/availability";

/** A small deterministic random source, so the demo is the same on every machine. */
export function seededRandom(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const cityOf = (name: string) => demoCities.find((c) => c.city === name)!;
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

function personRow(person: DemoPerson, index: number, passwordHash: string) {
  const photo = `/static/avatars/avatar-${(index % 12) + 1}.svg`;
  return userRow({
    email: person.email,
    // The demo accounts are verified: operator rights, payouts and provider linking wait for it (docs/decisions/0034).
    emailVerified: true,
    passwordHash,
    username: person.username,
    firstName: person.firstName,
    lastName: person.lastName,
    dateOfBirth: person.dateOfBirth,
    photo,
    photos: [photo],
    profileImageUrl: photo,
    bio: person.bio,
    country: cityOf(person.city).country,
    city: person.city,
    languages: person.languages,
    interests: person.interests,
  });
}

/**
 * Loads the demo into an empty database: hosts in five cities, activities in every category,
 * past completed bookings with reviews so ratings are real, and group activities in every city
 * with a few upcoming sessions whose spots demo people hold (`groupSessions`). Does nothing when
 * any user exists. Returns what it added.
 *
 * The bookings' money is what really happens with `provider`, the one the app runs with
 * (`paymentProviderName`, src/web/payments/index.ts):
 * - the built-in test provider: each booking was paid (a captured payment, stored as the test
 *   provider stores one) and the host's share is owed, so a demo host who sets up payouts sees
 *   them sent by the payout job, as any host would;
 * - Stripe: no payment can be made up at Stripe, so the shares are written as already paid out,
 *   before the app ran: the earnings show, and nothing is owed that could never be sent.
 */
export async function seedDemo(db: Db, now = Date.now(), { provider = "test" }: { provider?: PaymentProvider["name"] } = {}) {
  const existing = await one(db.select({ n: count() }).from(users));
  if ((existing?.n ?? 0) > 0) return null;

  const random = seededRandom(42);
  const passwordHash = await Bun.password.hash(DEMO_PASSWORD);
  const hostRows = demoHosts.map((h, i) => personRow(h, i, passwordHash));
  const guestRow = personRow(demoGuest, demoHosts.length, passwordHash);

  const activityRows = demoActivities.map((a, i) => {
    // Spread the activities so every city gets several categories.
    const host = hostRows[(i * 5) % hostRows.length]!;
    const photoNumbers = [1, 2, 3].sort(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 3));
    const createdAt = now - i * 3 * 60 * 60 * 1000;
    return activityRow(
      host,
      {
        category: a.category,
        title: a.title,
        description: a.description,
        // Rates are written in whole units of the host's city's currency: $45, €45, £45; in yen a
        // hundred times that (¥4,500), which is what an hour costs there.
        currency: currencyOfHost(host),
        cancellationPolicy: demoPolicy(host, i),
        hourlyRateCents: a.rate * 100,
        photos: photoNumbers.map((n) => `/static/photos/${a.category}-${n}.svg`),
        minDurationMinutes: a.minMinutes ?? 60,
        maxDurationMinutes: a.maxMinutes ?? null,
        meetingPoint: a.meetingPoint ?? null,
        hasMeetingPoint: Boolean(a.meetingPoint),
      },
      createdAt,
    );
  });

  // Past, completed bookings with reviews from both sides.
  const people = [...hostRows, guestRow];
  const bookingRows: (typeof bookings.$inferInsert)[] = [];
  const messageRows: (typeof messages.$inferInsert)[] = [];
  const reviewRows: (typeof reviews.$inferInsert)[] = [];
  const ledgerRows: (typeof ledgerEntries.$inferInsert)[] = [];
  const intentRows: (typeof testPaymentIntents.$inferInsert)[] = [];
  const operationRows: (typeof testPaymentOperations.$inferInsert)[] = [];
  activityRows.forEach((activity, i) => {
    const howMany = i % 3 === 2 ? 0 : 1 + Math.floor(random() * 3);
    for (let k = 0; k < howMany; k++) {
      const guests = people.filter((p) => p.id !== activity.hostId);
      const guest = guests[Math.floor(random() * guests.length)]!;
      // On the hour between 9:00 and 18:00 in the activity's city, 7 to 66 days ago, as people book.
      const timeZone = cityByName(activity.city)?.timeZone ?? "UTC";
      const day = Temporal.PlainDate.from(todayIn(now, timeZone)).subtract({ days: 7 + Math.floor(random() * 60) });
      const startsAt = instantOf(`${day.toString()}T${String(9 + Math.floor(random() * 10)).padStart(2, "0")}:00:00`, timeZone)!;
      const booking = bookingRow(
        { ...activity, minDurationMinutes: activity.minDurationMinutes ?? 60 },
        { guestId: guest.id, startsAt, status: "completed", respondBy: startsAt - 2 * DAY, respondedAt: startsAt - 3 * DAY, paymentProvider: provider },
      );
      const bookingId = booking.id;
      const durationMinutes = booking.durationMinutes;
      // Requested (and the card authorised) 4 days before, accepted (captured) 3 days before.
      const requestedAt = startsAt - 4 * DAY;
      if (provider === "test") {
        const payment = capturedTestPayment(booking, { createdAt: requestedAt, capturedAt: startsAt - 3 * DAY });
        booking.paymentIntentId = payment.intent.id;
        intentRows.push(payment.intent);
        operationRows.push(payment.capture);
      }
      bookingRows.push(booking);
      // The money of a completed booking, as the booking rules write it: the host has no payout
      // account yet, so the share is owed (test provider), or it was paid out before (Stripe).
      ledgerRows.push(...completedLedgerRows({ ...booking, createdAt: requestedAt }, { paidOut: provider !== "test" }));
      messageRows.push(
        { id: crypto.randomUUID(), bookingId, senderId: guest.id, content: "booking_request", isSystemMessage: true, systemMessageType: "booking_request", readBy: [guest.id, activity.hostId], createdAt: startsAt - 4 * DAY, seq: 1 },
        { id: crypto.randomUUID(), bookingId, senderId: activity.hostId, content: "booking_accepted", isSystemMessage: true, systemMessageType: "booking_accepted", readBy: [guest.id, activity.hostId], createdAt: startsAt - 3 * DAY, seq: 2 },
        { id: crypto.randomUUID(), bookingId, senderId: activity.hostId, content: "booking_completed", isSystemMessage: true, systemMessageType: "booking_completed", readBy: [guest.id, activity.hostId], createdAt: startsAt + durationMinutes * 60 * 1000, seq: 3 },
      );
      const text = demoReviewTexts[Math.floor(random() * demoReviewTexts.length)]!;
      reviewRows.push(
        reviewRow({ bookingId, reviewerId: guest.id, reviewedUserId: activity.hostId, activityId: activity.id, stars: random() < 0.7 ? 5 : 4, text: text || null, createdAt: startsAt + DAY }),
        reviewRow({ bookingId, reviewerId: activity.hostId, reviewedUserId: guest.id, stars: 5, text: "Great guest, welcome back any time.", createdAt: startsAt + DAY + 60_000 }),
      );
    }
  });

  const groups = groupSessions(people, now, provider);
  bookingRows.push(...groups.bookings);
  messageRows.push(...groups.messages);
  ledgerRows.push(...groups.ledger);
  intentRows.push(...groups.intents);
  operationRows.push(...groups.operations);

  await writeTransaction(db, async (tx) => {
    await tx.insert(users).values([...hostRows, guestRow]);
    await tx.insert(activities).values(activityRows);
    const groupActivities = await tx.insert(activities).values(groups.activities).returning();
    for (let i = 0; i < bookingRows.length; i += 100) await tx.insert(bookings).values(bookingRows.slice(i, i + 100));
    for (let i = 0; i < messageRows.length; i += 100) await tx.insert(messages).values(messageRows.slice(i, i + 100));
    for (let i = 0; i < reviewRows.length; i += 100) await tx.insert(reviews).values(reviewRows.slice(i, i + 100));
    for (let i = 0; i < ledgerRows.length; i += 100) await tx.insert(ledgerEntries).values(ledgerRows.slice(i, i + 100));
    for (let i = 0; i < intentRows.length; i += 100) await tx.insert(testPaymentIntents).values(intentRows.slice(i, i + 100));
    for (let i = 0; i < operationRows.length; i += 100) await tx.insert(testPaymentOperations).values(operationRows.slice(i, i + 100));
    await scheduleSessionJobs(tx, groupActivities, groups.bookings);
  });
  const coveredCategories = new Set(activityRows.map((a) => a.category));
  if (coveredCategories.size !== categories.length) throw new Error("Demo data must cover every category");
  return { hosts: hostRows.length, activities: activityRows.length + groups.activities.length, bookings: bookingRows.length };
}

/** The weekly hours of a demo group activity: one range on each of its days. */
const weeklyHoursOf = (days: number[], range: [number, number]): WeeklyHours => Array.from({ length: 7 }, (_, d) => (days.includes(d) ? [range] : []));

/**
 * The demo's group activities (docs/decisions/0049) and their upcoming sessions, as booking
 * would have written them: each guest's booking of some spots was requested two days ago and
 * accepted an hour later (its card captured), priced by `groupPriceFor` through `bookingRow`.
 * Each session lies on the first day its weekly hours open on or after the day it names, so the
 * demo is the same on every machine for the same day.
 *
 * Only with the built-in test provider: an accepted booking's payment cannot be made up at Stripe,
 * and one that was never made could not be refunded if the guest cancelled or the session fell
 * short of its minimum; on Stripe the group activities come without sessions.
 */
function groupSessions(people: ReturnType<typeof userRow>[], now: number, provider: PaymentProvider["name"]) {
  const byUsername = new Map(people.map((p) => [p.username!, p]));
  const out = {
    activities: [] as ReturnType<typeof groupActivityRow>[],
    bookings: [] as ReturnType<typeof bookingRow>[],
    messages: [] as (typeof messages.$inferInsert)[],
    ledger: [] as (typeof ledgerEntries.$inferInsert)[],
    intents: [] as (typeof testPaymentIntents.$inferInsert)[],
    operations: [] as (typeof testPaymentOperations.$inferInsert)[],
  };
  demoGroupActivities.forEach((g, i) => {
    const host = byUsername.get(g.host)!;
    const capacity = g.capacity;
    const activity = groupActivityRow(
      host,
      {
        category: g.category,
        title: g.title,
        description: g.description,
        photos: [`/static/photos/${g.category}-${(i % 3) + 1}.svg`],
        capacity,
        currency: currencyOfHost(host),
        cancellationPolicy: demoPolicy(host, i + 1),
        pricePerPersonCents: g.pricePerPerson * 100,
        hourlyRateCents: g.pricePerPerson * 100,
        sessionMinutes: g.sessionMinutes,
        minSpots: g.minSpots ?? 1,
        maxSpots: g.maxSpots ?? capacity,
        privateGroupPriceCents: g.privateGroupPrice ? g.privateGroupPrice * 100 : null,
        minToRun: g.minToRun ?? null,
        minToRunHours: g.minToRun ? (g.minToRunHours ?? 24) : null,
        weeklyHours: weeklyHoursOf(g.days, g.hours),
        meetingPoint: g.meetingPoint ?? null,
        hasMeetingPoint: Boolean(g.meetingPoint),
      },
      // Listed after the private activities, newest first among them.
      now - (demoActivities.length + i) * 3 * HOUR,
    );
    out.activities.push(activity);
    if (provider !== "test") return;
    const timeZone = cityByName(activity.city)?.timeZone ?? "UTC";
    for (const session of g.sessions) {
      let day = Temporal.PlainDate.from(todayIn(now, timeZone)).add({ days: session.inDays });
      while (!g.days.includes(day.dayOfWeek - 1)) day = day.add({ days: 1 });
      const startsAt = instantOf(`${day.toString()}T${String(session.hour).padStart(2, "0")}:00:00`, timeZone)!;
      session.guests.forEach(([username, spots], k) => {
        const guest = byUsername.get(username)!;
        const requestedAt = now - 2 * DAY + k * HOUR;
        const acceptedAt = requestedAt + HOUR;
        const booking = bookingRow(
          { ...activity, minDurationMinutes: activity.minDurationMinutes ?? 60 },
          { guestId: guest.id, startsAt, status: "accepted", spots, privateGroup: session.privateGroup ?? false, createdAt: requestedAt, updatedAt: acceptedAt, paymentProvider: provider },
        );
        const payment = capturedTestPayment(booking, { createdAt: requestedAt, capturedAt: acceptedAt });
        booking.paymentIntentId = payment.intent.id;
        out.intents.push(payment.intent);
        out.operations.push(payment.capture);
        out.bookings.push(booking);
        out.ledger.push(...acceptedLedgerRows(booking, acceptedAt));
        out.messages.push(
          { id: crypto.randomUUID(), bookingId: booking.id, senderId: guest.id, content: "booking_request", isSystemMessage: true, systemMessageType: "booking_request", readBy: [guest.id, host.id], createdAt: requestedAt, seq: 1 },
          { id: crypto.randomUUID(), bookingId: booking.id, senderId: host.id, content: "booking_accepted", isSystemMessage: true, systemMessageType: "booking_accepted", readBy: [guest.id, host.id], createdAt: acceptedAt, seq: 2 },
        );
      });
    }
  });
  return out;
}

/**
 * The timed work booking schedules with an accepted group booking: its completion after the
 * session, and its session's minimum to run counted at the deadline (once per session).
 */
async function scheduleSessionJobs(tx: WriteTx, groupActivities: Activity[], sessionBookings: ReturnType<typeof bookingRow>[]) {
  const byId = new Map(groupActivities.map((a) => [a.id, a]));
  for (const b of sessionBookings) {
    await schedule(tx, autoCompleteJob, { bookingId: b.id }, { at: b.endsAt + AUTO_COMPLETE_MS, key: jobKeys.autoComplete(b.id) });
    await scheduleMinimum(tx, byId.get(b.activityId)!, { startsAt: b.startsAt, pricePerPersonCents: b.pricePerPersonCents ?? null });
  }
}

/**
 * Adds `count` generated activities spread over the existing users, the demo cities and every
 * category: for benchmarks (`bun run seed --activities 10000`). With `groupEvery` n, every n-th
 * is a group activity (docs/decisions/0049): 4 to 20 spots, sessions of 1 to 3 hours, every
 * other one with a minimum to run; the rest, and every one without it, are private.
 */
export async function seedGeneratedActivities(db: Db, count: number, now = Date.now(), { groupEvery = 0 }: { groupEvery?: number } = {}) {
  const hosts = await db.select({ id: users.id, city: users.city, country: users.country }).from(users);
  if (!hosts.length) throw new Error("Generated activities need at least one user to host them");
  const random = seededRandom(count);
  const adjectives = ["Relaxed", "Beginner", "Advanced", "Evening", "Morning", "Weekend", "Private", "Small-group"];
  const nouns = ["session", "class", "workshop", "walk", "lesson", "meetup", "tour", "practice"];
  await writeTransaction(db, async (tx) => {
    for (let i = 0; i < count; i += 500) {
      const batch: (typeof activities.$inferInsert)[] = [];
      for (let k = i; k < Math.min(count, i + 500); k++) {
        const host = hosts[Math.floor(random() * hosts.length)]!;
        const place = random() < 0.5 && host.city && host.country ? { city: host.city, country: host.country } : demoCities[k % demoCities.length]!;
        const category = categories[k % categories.length]!;
        const hourlyRateCents = 1500 + Math.floor(random() * 80) * 100;
        const capacity = 4 + (k % 17);
        const group =
          groupEvery > 0 && k % groupEvery === groupEvery - 1
            ? { format: "group" as const, capacity, pricePerPersonCents: hourlyRateCents, sessionMinutes: 60 * (1 + (k % 3)), minSpots: 1, maxSpots: capacity, minToRun: k % 2 ? null : 2, minToRunHours: k % 2 ? null : 24 }
            : {};
        batch.push({
          id: crypto.randomUUID(),
          hostId: host.id,
          country: place.country,
          city: place.city,
          currency: currencyOfHost(place),
          category,
          title: `${adjectives[k % adjectives.length]} ${category} ${nouns[(k >> 3) % nouns.length]} #${k + 1}`,
          description: `A generated ${category} activity for load testing.`,
          hourlyRateCents,
          ...group,
          photos: [`/static/photos/${category}-${(k % 3) + 1}.svg`],
          createdAt: now - (k + 1) * 1000,
          updatedAt: now - (k + 1) * 1000,
        });
      }
      await tx.insert(activities).values(batch);
    }
  });
}
