import { and, count, desc, eq, isNull, notExists, sql, sum } from "drizzle-orm";
import { activities, bookings, ledgerEntries, users } from "../../db/schema";
import type { Deps } from "../context";
import { participantUser, publicUserColumns } from "../profiles/serialize";

export interface HostRequest {
  id: string;
  activityTitle: string;
  guestName: string | null;
  guestPhoto: string | null;
  startsAtLocal: string;
  durationMinutes: number;
  /** What the booking is worth before the guest's service fee. */
  subtotalCents: number;
  createdAt: number;
}

/** Pending requests for a host's activities, newest first; the guest as a booking's other side sees them. */
export async function hostRequests(deps: Deps, hostId: string, limit?: number): Promise<{ requests: HostRequest[]; total: number }> {
  const where = and(eq(bookings.hostId, hostId), eq(bookings.status, "pending"));
  const query = deps.db
    .select({
      id: bookings.id,
      activityTitle: activities.title,
      guest: publicUserColumns,
      startsAtLocal: bookings.startsAtLocal,
      durationMinutes: bookings.durationMinutes,
      subtotalCents: bookings.subtotalCents,
      createdAt: bookings.createdAt,
    })
    .from(bookings)
    .innerJoin(activities, eq(activities.id, bookings.activityId))
    .innerJoin(users, eq(users.id, bookings.guestId))
    .where(where)
    .orderBy(desc(bookings.createdAt));
  const [rows, total] = await Promise.all([limit ? query.limit(limit) : query, deps.db.select({ n: count() }).from(bookings).where(where).get()]);
  const today = new Date(deps.now());
  const requests = rows.map((r): HostRequest => {
    const guest = participantUser(r.guest, today);
    return {
      id: r.id,
      activityTitle: r.activityTitle,
      guestName: guest.firstName,
      guestPhoto: guest.photo,
      startsAtLocal: r.startsAtLocal,
      durationMinutes: r.durationMinutes,
      subtotalCents: r.subtotalCents,
      createdAt: r.createdAt,
    };
  });
  return { requests, total: total?.n ?? 0 };
}

/**
 * The host's money (spec: totalEarnings, pendingPayouts, completedBookings), in cents: earnings
 * are the host's 80% of completed bookings; pending is the part not yet transferred to them.
 */
export async function hostEarnings(deps: Deps, hostId: string) {
  const completed = and(eq(bookings.hostId, hostId), eq(bookings.status, "completed"));
  const [all, pending] = await Promise.all([
    deps.db.select({ total: sum(bookings.hostEarningsCents), n: count() }).from(bookings).where(completed).get(),
    deps.db
      .select({ total: sum(bookings.hostEarningsCents) })
      .from(bookings)
      .where(
        and(
          completed,
          notExists(
            deps.db
              .select({ one: sql`1` })
              .from(ledgerEntries)
              .where(and(eq(ledgerEntries.bookingId, bookings.id), eq(ledgerEntries.kind, "transfer"))),
          ),
        ),
      )
      .get(),
  ]);
  return {
    totalEarningsCents: Number(all?.total ?? 0),
    pendingPayoutsCents: Number(pending?.total ?? 0),
    completedBookings: all?.n ?? 0,
  };
}

export async function countOwnActivities(deps: Deps, hostId: string) {
  const row = await deps.db
    .select({ n: count() })
    .from(activities)
    .where(and(eq(activities.hostId, hostId), isNull(activities.archivedAt)))
    .get();
  return row?.n ?? 0;
}
