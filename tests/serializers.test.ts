import { describe, expect, test } from "bun:test";
import type { Activity, User } from "../db/schema";
import { PUBLIC_ACTIVITY_KEYS, publicActivity } from "../src/activities/serialize";
import { PARTICIPANT_USER_KEYS, participantUser, PUBLIC_USER_KEYS, publicUser, SELF_USER_KEYS, selfUser } from "../src/profiles/serialize";
import { REVIEW_KEYS, reviewView } from "../src/reviews/serialize";

/** A person with every column filled, private ones included. */
const person: User = {
  id: "7d0f3a52-0d3c-4f4e-9a57-3e3c1b1f0a11",
  username: "pat",
  email: "pat@example.com",
  emailVerified: true,
  passwordHash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA",
  firstName: "Pat",
  lastName: "Secretname",
  name: "Pat Secretname",
  profileImageUrl: "/objects/a",
  photo: "/objects/a",
  photos: ["/objects/a"],
  bio: "Hello",
  about: JSON.stringify({ work: "Studio", jobTitle: "Hidden title" }),
  aboutVisibility: JSON.stringify({ jobtitle: false }),
  country: "France",
  city: "Paris",
  dateOfBirth: "1990-05-15",
  phone: "+33 6 00 00 00 00",
  interests: ["tennis"],
  languages: ["French"],
  locale: "fr",
  stripeCustomerId: "cus_123456",
  stripeAccountId: "acct_123456",
  payoutsEnabled: true,
  suspendedAt: Date.UTC(2025, 5, 1),
  deletedAt: null,
  calendarFeedVersion: 3,
  busyCalendarUrl: "https://calendar.example.com/private-busysecret/basic.ics",
  busyCalendarFetchedAt: Date.UTC(2025, 5, 2),
  busyCalendarError: null,
  createdAt: Date.UTC(2024, 0, 2),
  updatedAt: Date.UTC(2024, 0, 3),
};
const today = new Date(Date.UTC(2026, 0, 1));
const sorted = (keys: readonly string[]) => [...keys].sort();

describe("each audience gets exactly its allow-list", () => {
  test("public: what anyone signed in sees", () => {
    const p = publicUser(person, today);
    expect(sorted(Object.keys(p))).toEqual(sorted(PUBLIC_USER_KEYS));
    expect(p).toMatchObject({ name: "Pat", age: 35, about: { work: "Studio" }, memberSince: 2024 });
    const text = JSON.stringify(p);
    for (const secret of ["pat@example.com", "argon2", "Secretname", "1990-05-15", "+33", "cus_", "acct_", "Hidden title"]) expect(text).not.toContain(secret);
  });

  test("participant: the other side of a booking", () => {
    const p = participantUser(person, today);
    expect(sorted(Object.keys(p))).toEqual(sorted(PARTICIPANT_USER_KEYS));
    const text = JSON.stringify(p);
    for (const secret of ["pat@example.com", "argon2", "Secretname", "1990-05-15", "+33", "cus_", "acct_", "Hidden title"]) expect(text).not.toContain(secret);
  });

  test("self: the person themself, without the hash or payment ids", () => {
    const s = selfUser(person, today);
    expect(sorted(Object.keys(s))).toEqual(sorted(SELF_USER_KEYS));
    expect(s).toMatchObject({ email: "pat@example.com", lastName: "Secretname", dateOfBirth: "1990-05-15", phone: "+33 6 00 00 00 00", hasPassword: true, age: 35 });
    expect(JSON.parse(s.about!)).toEqual({ work: "Studio", jobTitle: "Hidden title" });
    const text = JSON.stringify(s);
    for (const secret of ["argon2", "passwordHash", "cus_", "acct_", "stripe", "busysecret", "calendarFeed"]) expect(text).not.toContain(secret);
    expect(selfUser({ ...person, passwordHash: null }).hasPassword).toBe(false);
  });

  test("an activity, with its host from the public view", () => {
    const activity: Activity = {
      id: "1b7c0d1e-3a3f-4b8e-8c3e-6f1b2a3c4d5e",
      hostId: person.id,
      country: "France",
      city: "Paris",
      category: "sports",
      title: "Tennis",
      description: "An hour of tennis",
      hourlyRateCents: 4550,
      photos: [],
      tags: [],
      minDurationMinutes: 90,
      maxDurationMinutes: null,
      meetingPoint: null,
      weeklyHours: null,
      noticeMinutes: 0,
      horizonDays: 90,
      instantBooking: false,
      format: "private",
      currency: "usd",
      cancellationPolicy: "flexible",
      capacity: null,
      pricePerPersonCents: null,
      sessionMinutes: null,
      minSpots: null,
      maxSpots: null,
      privateGroupPriceCents: null,
      minToRun: null,
      minToRunHours: null,
      hasMeetingPoint: false,
      active: true,
      featured: false,
      archivedAt: null,
      hiddenAt: null,
      createdAt: 1,
      updatedAt: 2,
    };
    const a = publicActivity(activity, publicUser(person, today), { average: 4.5, count: 2 });
    expect(sorted(Object.keys(a))).toEqual(sorted(PUBLIC_ACTIVITY_KEYS));
    expect(a).toMatchObject({ hourlyRate: "45.50", duration: "1.50", maxDuration: null, rating: 4.5, reviewCount: 2 });
    expect(a.host).toEqual({ id: person.id, name: "Pat", username: "pat", photo: "/objects/a", age: 35, city: "Paris", bio: "Hello" });
  });

  test("a review, with its writer from the public view", () => {
    const r = reviewView({ id: "r1", stars: 5, text: "Great", createdAt: 3 }, publicUser(person, today));
    expect(sorted(Object.keys(r))).toEqual(sorted(REVIEW_KEYS));
    expect(r.reviewer).toEqual({ name: "Pat", photo: "/objects/a", age: 35, username: "pat" });
    expect(r.byUser).toEqual({ name: "Pat", photo: "/objects/a" });
  });
});
