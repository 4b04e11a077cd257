import { decimalFromCents } from "../../lib/money";
import type { Activity } from "../../db/schema";
import type { PublicUser } from "../profiles/serialize";
import type { WeeklyHours } from "../../shared/availability";

/**
 * What the app shows of an activity (docs/decisions/0007). Everything here is public to anyone
 * signed in, and an activity's host sees the same fields of their own activities, so there is
 * one audience and one allow-list. The host is shown from the person's public view, never from
 * their database row.
 */

/** The spec's host of an activity (§3): id, name, username, photo, age, city, bio. */
export interface ActivityHost {
  id: string;
  name: string | null;
  username: string | null;
  photo: string | null;
  age: number | null;
  city: string | null;
  bio: string | null;
}

export const ACTIVITY_HOST_KEYS = ["id", "name", "username", "photo", "age", "city", "bio"] as const satisfies readonly (keyof ActivityHost)[];

export function activityHost(host: PublicUser): ActivityHost {
  return { id: host.id, name: host.firstName, username: host.username, photo: host.photo, age: host.age, city: host.city, bio: host.bio };
}

export interface PublicActivity {
  id: string;
  hostId: string;
  host?: ActivityHost;
  country: string;
  city: string;
  category: string;
  title: string;
  description: string;
  /** Decimal string, as the spec reads it. */
  /** Decimal string with the currency's decimals ("45.50" euros, "3000" yen). */
  hourlyRate: string;
  /** The ISO 4217 code (lower case) every amount of the activity is in. */
  currency: string;
  photos: string[];
  tags: string[];
  /** Hours as decimal strings. */
  duration: string;
  maxDuration: string | null;
  meetingPoint: string | null;
  hasMeetingPoint: boolean;
  /**
   * When guests may book (decision 0037): per weekday, Monday first, `[from, to)` minutes of the
   * activity's local day; null: any day, starts from 08:00 to 22:00.
   */
  weeklyHours: WeeklyHours | null;
  /** Minimum minutes between a request and its start. */
  noticeMinutes: number;
  /** How many days ahead guests may book. */
  horizonDays: number;
  /** A paid request is accepted at once. */
  instantBooking: boolean;
  /** What guests get back on cancelling (docs/decisions/0050): "flexible", "moderate" or "strict". */
  cancellationPolicy: Activity["cancellationPolicy"];
  /** How it is sold (docs/decisions/0049): "private" by the hour, or "group" by the spot; the group fields are null for a private activity. */
  format: "private" | "group";
  capacity: number | null;
  /** Decimal string, as `hourlyRate` (which repeats it for a group). */
  pricePerPerson: string | null;
  sessionMinutes: number | null;
  minSpots: number | null;
  maxSpots: number | null;
  /** A whole session booked as a private group costs at least this (decimal string); null: not offered. */
  privateGroupPrice: string | null;
  /** The fewest spots a session runs with, counted `minToRunHours` before its start; null: none. */
  minToRun: number | null;
  minToRunHours: number | null;
  active: boolean;
  featured: boolean;
  createdAt: number;
  rating: number | null;
  reviewCount: number;
}

export const PUBLIC_ACTIVITY_KEYS = [
  "id",
  "hostId",
  "host",
  "country",
  "city",
  "category",
  "title",
  "description",
  "hourlyRate",
  "currency",
  "photos",
  "tags",
  "duration",
  "maxDuration",
  "meetingPoint",
  "hasMeetingPoint",
  "weeklyHours",
  "noticeMinutes",
  "horizonDays",
  "instantBooking",
  "cancellationPolicy",
  "format",
  "capacity",
  "pricePerPerson",
  "sessionMinutes",
  "minSpots",
  "maxSpots",
  "privateGroupPrice",
  "minToRun",
  "minToRunHours",
  "active",
  "featured",
  "createdAt",
  "rating",
  "reviewCount",
] as const satisfies readonly (keyof PublicActivity)[];

/** An activity as the API shows it (spec §3): rate and durations as decimal strings, the prices' currency beside them. */
export function publicActivity(activity: Activity, host?: PublicUser | null, rating?: { average: number | null; count: number }): PublicActivity {
  const hours = (m: number) => (m / 60).toFixed(2);
  return {
    id: activity.id,
    hostId: activity.hostId,
    host: host ? activityHost(host) : undefined,
    country: activity.country,
    city: activity.city,
    category: activity.category,
    title: activity.title,
    description: activity.description,
    hourlyRate: decimalFromCents(activity.hourlyRateCents, activity.currency),
    currency: activity.currency,
    photos: activity.photos,
    tags: activity.tags,
    duration: hours(activity.minDurationMinutes),
    maxDuration: activity.maxDurationMinutes === null ? null : hours(activity.maxDurationMinutes),
    meetingPoint: activity.meetingPoint,
    hasMeetingPoint: activity.hasMeetingPoint,
    weeklyHours: activity.weeklyHours ?? null,
    noticeMinutes: activity.noticeMinutes,
    horizonDays: activity.horizonDays,
    instantBooking: activity.instantBooking,
    cancellationPolicy: activity.cancellationPolicy,
    format: activity.format,
    capacity: activity.capacity,
    pricePerPerson: activity.pricePerPersonCents === null ? null : decimalFromCents(activity.pricePerPersonCents, activity.currency),
    sessionMinutes: activity.sessionMinutes,
    minSpots: activity.minSpots,
    maxSpots: activity.maxSpots,
    privateGroupPrice: activity.privateGroupPriceCents === null ? null : decimalFromCents(activity.privateGroupPriceCents, activity.currency),
    minToRun: activity.minToRun,
    minToRunHours: activity.minToRunHours,
    active: activity.active,
    featured: activity.featured,
    createdAt: activity.createdAt,
    rating: rating?.average ?? null,
    reviewCount: rating?.count ?? 0,
  };
}
