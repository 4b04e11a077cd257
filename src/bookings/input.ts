import { z } from "zod";

/**
 * The shapes of the bookings' inputs (spec §7). Values are checked for type and size here; the
 * rules (dates, times, durations, prices) are the service's, so both forms and JSON get the same.
 */
const text = (max: number) => z.string().max(max);
const amount = z.union([z.number(), text(32)]);
const hours = z.union([z.number(), text(8)]);

export const dateTimeIntentInput = z.object({
  amount,
  metadata: z.object({ activityId: text(64), date: text(16), time: text(8), duration: hours }),
});

export const existingBookingIntentInput = z.object({ bookingId: text(64), amount });

export const dialogIntentInput = z.object({
  activityId: text(64),
  hours,
  amount,
  proposedDate: text(16),
  proposedTime: text(8),
  // Its one limit and its cleaning are the service's (`bookingMessage`); the body limit bounds it here.
  message: z.string().optional(),
});

export const createBookingInput = z.object({
  activityId: text(64),
  proposedDatetime: text(32),
  durationHours: hours,
  priceTotal: amount,
  paymentIntentId: text(200),
  // Its one limit and its cleaning are the service's (`bookingMessage`); the body limit bounds it here.
  message: z.string().optional(),
});

export const selectionInput = z.object({ date: text(16).optional(), time: text(8).optional(), duration: hours.optional() });

export const cardInput = z.object({ cardNumber: text(40).optional(), expiry: text(10).optional(), cvc: text(8).optional(), amount: amount.optional() });

export const testConfirmInput = z.object({ clientSecret: text(300), cardNumber: text(40), expiry: text(10), cvc: text(8) });
