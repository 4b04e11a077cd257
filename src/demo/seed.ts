import { one } from "../../db/client";
import { count } from "drizzle-orm";
import { activities, bookings, ledgerEntries, messages, reviews, testPaymentIntents, testPaymentOperations, users } from "../../db/schema";
import { writeTransaction, type Db } from "../../db/client";
import { activityRow, bookingRow, capturedTestPayment, completedLedgerRows, reviewRow, userRow } from "./factories";
import type { PaymentProvider } from "../ports/payments";
import { cityByName } from "../../lib/places";
import { instantOf, todayIn } from "../../lib/time";
import { demoActivities, demoCities, demoGuest, demoHosts, demoReviewTexts, DEMO_PASSWORD, type DemoPerson } from "./demo-data";
import { categories } from "../activities/categories";

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
const DAY = 24 * 60 * 60 * 1000;

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
 * and past completed bookings with reviews so ratings are real. Does nothing when any user
 * exists. Returns what it added.
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

  await writeTransaction(db, async (tx) => {
    await tx.insert(users).values([...hostRows, guestRow]);
    await tx.insert(activities).values(activityRows);
    for (let i = 0; i < bookingRows.length; i += 100) await tx.insert(bookings).values(bookingRows.slice(i, i + 100));
    for (let i = 0; i < messageRows.length; i += 100) await tx.insert(messages).values(messageRows.slice(i, i + 100));
    for (let i = 0; i < reviewRows.length; i += 100) await tx.insert(reviews).values(reviewRows.slice(i, i + 100));
    for (let i = 0; i < ledgerRows.length; i += 100) await tx.insert(ledgerEntries).values(ledgerRows.slice(i, i + 100));
    for (let i = 0; i < intentRows.length; i += 100) await tx.insert(testPaymentIntents).values(intentRows.slice(i, i + 100));
    for (let i = 0; i < operationRows.length; i += 100) await tx.insert(testPaymentOperations).values(operationRows.slice(i, i + 100));
  });
  const coveredCategories = new Set(activityRows.map((a) => a.category));
  if (coveredCategories.size !== categories.length) throw new Error("Demo data must cover every category");
  return { hosts: hostRows.length, activities: activityRows.length, bookings: bookingRows.length };
}

/**
 * Adds `count` generated activities spread over the existing users, the demo cities and every
 * category: for benchmarks (`bun run seed --activities 10000`).
 */
export async function seedGeneratedActivities(db: Db, count: number, now = Date.now()) {
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
        batch.push({
          id: crypto.randomUUID(),
          hostId: host.id,
          country: place.country,
          city: place.city,
          category,
          title: `${adjectives[k % adjectives.length]} ${category} ${nouns[(k >> 3) % nouns.length]} #${k + 1}`,
          description: `A generated ${category} activity for load testing.`,
          hourlyRateCents: 1500 + Math.floor(random() * 80) * 100,
          photos: [`/static/photos/${category}-${(k % 3) + 1}.svg`],
          createdAt: now - (k + 1) * 1000,
          updatedAt: now - (k + 1) * 1000,
        });
      }
      await tx.insert(activities).values(batch);
    }
  });
}
