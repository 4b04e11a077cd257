import type { Booking } from "../../db/schema";
import { participantUser, type ParticipantUser, type PublicUserSource } from "../profiles/serialize";
import { decimalFromCents } from "../../lib/money";

/**
 * What the API shows of a booking (docs/decisions/0007): an allow-list, the same for both sides
 * of it, with the other people through `participantUser`. Provider ids (the payment intent, the
 * checkout session) stay on the server.
 */
export interface BookingView {
  id: string;
  status: Booking["status"];
  /** Which side the caller is on. */
  role: "guest" | "host";
  guestId: string;
  guest: ParticipantUser;
  hostId: string;
  host: ParticipantUser;
  activityId: string;
  activity: { id: string; title: string; city: string; hostId: string };
  /** The spec's proposedDatetime: wall clock in the activity's city. */
  proposedDatetime: string;
  timeZone: string;
  startsAt: string;
  endsAt: string;
  durationHours: number;
  durationMinutes: number;
  /** The spots of a group session it takes (1 for a private booking; docs/decisions/0049). */
  spots: number;
  /** A group session's price of one spot when booked (decimal string); null for a private booking. */
  pricePerPerson: string | null;
  /** The whole session booked as a private group. */
  privateGroup: boolean;
  subtotal: string;
  serviceFee: string;
  priceTotal: string;
  /** The host's share (80% of the subtotal). */
  hostEarnings: string;
  /** How much of `priceTotal` the host has given back so far (docs/decisions/0051). */
  refunded: string;
  currency: string;
  message: string | null;
  chatId: string | null;
  respondBy: string | null;
  holdUntil: string | null;
  canceledBy: "guest" | "host" | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export const BOOKING_VIEW_KEYS = [
  "id", "status", "role", "guestId", "guest", "hostId", "host", "activityId", "activity", "proposedDatetime", "timeZone", "startsAt", "endsAt",
  "durationHours", "durationMinutes", "spots", "pricePerPerson", "privateGroup", "subtotal", "serviceFee", "priceTotal", "hostEarnings", "refunded", "currency", "message", "chatId", "respondBy", "holdUntil",
  "canceledBy", "createdAt", "updatedAt", "completedAt",
] as const satisfies readonly (keyof BookingView)[];

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function bookingView(
  b: Booking,
  viewerId: string,
  parts: { activity: { id: string; title: string; city: string }; guest: PublicUserSource; host: PublicUserSource },
  today = new Date(),
): BookingView {
  return {
    id: b.id,
    status: b.status,
    role: b.guestId === viewerId ? "guest" : "host",
    guestId: b.guestId,
    guest: participantUser(parts.guest, today),
    hostId: b.hostId,
    host: participantUser(parts.host, today),
    activityId: b.activityId,
    activity: { id: parts.activity.id, title: parts.activity.title, city: parts.activity.city, hostId: b.hostId },
    proposedDatetime: b.startsAtLocal,
    timeZone: b.timeZone,
    startsAt: new Date(b.startsAt).toISOString(),
    endsAt: new Date(b.endsAt).toISOString(),
    durationHours: b.durationMinutes / 60,
    durationMinutes: b.durationMinutes,
    spots: b.spots,
    pricePerPerson: b.pricePerPersonCents === null ? null : decimalFromCents(b.pricePerPersonCents, b.currency),
    privateGroup: b.privateGroup,
    subtotal: decimalFromCents(b.subtotalCents, b.currency),
    serviceFee: decimalFromCents(b.serviceFeeCents, b.currency),
    priceTotal: decimalFromCents(b.totalCents, b.currency),
    hostEarnings: decimalFromCents(b.hostEarningsCents, b.currency),
    refunded: decimalFromCents(b.refundedCents, b.currency),
    currency: b.currency,
    message: b.message,
    chatId: b.chatId,
    respondBy: b.status === "pending" ? iso(b.respondBy) : null,
    holdUntil: b.status === "awaiting_payment" ? iso(b.holdUntil) : null,
    canceledBy: b.canceledBy,
    createdAt: new Date(b.createdAt).toISOString(),
    updatedAt: new Date(b.updatedAt).toISOString(),
    completedAt: iso(b.completedAt),
  };
}

/** The spec's `GET /api/bookings/{id}/details`: the activity (title, host id and name) and the guest (id and name). */
export interface BookingDetails {
  id: string;
  status: Booking["status"];
  activity: { id: string; title: string; hostId: string; host: { id: string; name: string | null } };
  guestId: string;
  guest: { id: string; name: string | null };
}

export const BOOKING_DETAILS_KEYS = ["id", "status", "activity", "guestId", "guest"] as const satisfies readonly (keyof BookingDetails)[];

export function bookingDetails(b: Booking, parts: { activity: { id: string; title: string }; guest: PublicUserSource; host: PublicUserSource }): BookingDetails {
  return {
    id: b.id,
    status: b.status,
    activity: { id: parts.activity.id, title: parts.activity.title, hostId: b.hostId, host: { id: b.hostId, name: parts.host.firstName } },
    guestId: b.guestId,
    guest: { id: b.guestId, name: parts.guest.firstName },
  };
}
