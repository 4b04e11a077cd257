import type { WriteTx } from "../../db/client";
import { defineJob, scheduleJob, type JobKind, type LaneName, type ScheduleOptions } from "../jobs";

/**
 * The bookings' timed work (docs/decisions/0011), declared here by kind and payload only: the
 * rules schedule it (`schedule`) without knowing what runs it, and the feature's plugin
 * (`index.ts`) attaches each kind's handler (`handle`), so this module imports no rule and no
 * rule module imports another through it. Each handler is idempotent: it checks the state it
 * would change, and its provider calls go through the booking's claims (docs/decisions/0028).
 * Keys are built in `keys.ts`. Every one of them is money work (holds, captures, payouts,
 * recovery, reconciliation, and the state changes that lead to them): it runs in the money lane,
 * which waits behind no email, calendar or push (docs/decisions/0045).
 */
export interface JobDeclaration<Payload> {
  kind: string;
  /** Attempts before the job gives up and is listed for the operator (default: the runner's). */
  maxAttempts?: number;
  /** A chore repeated every so many milliseconds (registered once, never scheduled by a rule). */
  every?: number;
  /** The runner's lane: always money here. */
  lane: LaneName;
  /** How long one attempt may take (default: the money lane's). */
  timeLimitMs?: number;
  /** The payload's type, for `schedule` and `handle` only: never set. */
  readonly payload?: Payload;
}

const declare = <Payload = Record<string, never>>(declaration: Omit<JobDeclaration<Payload>, "payload" | "lane">): JobDeclaration<Payload> => ({ ...declaration, lane: "money" });

/** A sweep asks the provider about every open booking, one after another: more than one movement's time. */
const SWEEP_LIMIT_MS = 4 * 60 * 1000;

type ById = { bookingId: string };

/** An awaiting-payment booking's 15-minute hold lapsed: retried until the booking no longer awaits payment. */
export const holdJob = declare<ById>({ kind: "booking.hold" });

/** A pending request unanswered 24 hours after it was sent, or at its start. */
export const expireJob = declare<ById>({ kind: "booking.expire" });

/**
 * A request for an instant-booking activity (docs/decisions/0037): accepted by the system on the
 * host's behalf, through the host's own Accept (claim, capture, record, recovery). Scheduled, due at
 * once, in the transaction that makes the booking pending, and run right after its commit; does
 * nothing once the booking is no longer pending (the host declined, the guest withdrew).
 */
export const instantAcceptJob = declare<ById>({ kind: "booking.instant-accept" });

/**
 * The instant accept's safety net: scheduled with it, ten minutes on (`instantUnansweredAt`). A
 * request still pending then (its accept could not be made: the payment not confirmed, the
 * capture refused, the job out of tries) becomes the host's to answer, and the host is told it
 * as a request, which it was not told before.
 */
export const instantUnansweredJob = declare<ById>({ kind: "booking.instant-unanswered", maxAttempts: 12 });

/**
 * A group session's minimum to run (docs/decisions/0049), counted at its deadline: short of it,
 * every booking of the session is released or refunded in full. Scheduled with the session's
 * first booking, once per session (its key).
 */
export const sessionMinimumJob = declare<{ activityId: string; startsAt: number }>({ kind: "booking.session-minimum" });

/** An accepted booking nobody completed, 48 hours after its end. */
export const autoCompleteJob = declare<ById>({ kind: "booking.autocomplete" });

/** A completed booking's host share, sent when the host has a payout account. */
export const payoutJob = declare<ById>({ kind: "booking.payout" });

/**
 * A money movement claimed and never recorded (or a checkout's payment, a minute on): finished
 * from what the provider shows. Retried
 * for about five hours while the provider does not answer, then listed as failed for the
 * operator; the 15-minute sweep still recovers the claim once the provider answers.
 */
export const recoverJob = declare<ById>({ kind: "booking.recover", maxAttempts: 12 });

/** An authorisation with no booking 30 minutes on is released. */
export const reconcileJob = declare<{ intentId: string }>({ kind: "payments.reconcile" });

/** Hourly: pending payouts of hosts who have since set up their payout account. */
export const payoutSweepJob = declare({ kind: "bookings.payouts", every: 60 * 60 * 1000, timeLimitMs: SWEEP_LIMIT_MS });

/** Every 15 minutes: open bookings compared with the provider, lost claims recovered. */
export const paymentsSweepJob = declare({ kind: "payments.sweep", every: 15 * 60 * 1000, timeLimitMs: SWEEP_LIMIT_MS });

/** A declared kind with the handler that runs it, for `deps.jobs.register`. */
export const handle = <Payload>(declaration: JobDeclaration<Payload>, run: JobKind<Payload>["run"]): JobKind<Payload> => defineJob<Payload>({ ...declaration, run });

/** Adds a job of a declared kind (in a transaction too, with the change that needs it). */
export async function schedule<Payload>(tx: WriteTx, declaration: JobDeclaration<Payload>, payload: Payload, options: ScheduleOptions) {
  await scheduleJob(tx, handle(declaration, notRunHere), payload, options);
}

/** Scheduling only reads the kind; the runner runs the handler `index.ts` registered for it. */
function notRunHere(): never {
  throw new Error("a declared job kind runs through its registered handler");
}
