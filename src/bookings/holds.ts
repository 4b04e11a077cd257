import { and, eq, gt, inArray, or, type Placeholder } from "drizzle-orm";
import { bookings } from "../../db/schema";

/**
 * What holds a person's time (ARCHITECTURE decision 8): pending and accepted bookings, and an
 * awaiting-payment booking while its hold lasts. One host is never booked twice at once, and
 * nobody is at two activities at once, as a guest or as a host.
 */
export const HOLDING = ["pending", "accepted"] as const;

/** A value of a condition below: given now, or a placeholder of a statement prepared once. */
export type Param<T> = T | Placeholder;

/** The one condition "this booking holds its time at `now`", for every query of what is held. */
export const holdsTime = (now: Param<number>) => or(inArray(bookings.status, [...HOLDING]), and(eq(bookings.status, "awaiting_payment"), gt(bookings.holdUntil, now)));

