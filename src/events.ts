import type { Booking, BookingStatus, Review } from "../db/schema";
import type { messages } from "../db/schema";
import { loggable } from "../db/faults";

export type MessageRow = typeof messages.$inferSelect;

/**
 * What happened, told after it was committed. Features announce their changes here; the live
 * channel (WebSocket) and notifications listen. A listener never runs inside a transaction and
 * never changes the outcome of the change it hears about: its failures are logged and dropped.
 */
export type DomainEvent =
  /**
   * A booking's status changed (`from` null: it was created). `message` is the system message
   * written with it; `instant` marks an accept made on the host's behalf (instant booking).
   */
  | { type: "booking.changed"; booking: Booking; from: BookingStatus | null; message: MessageRow | null; instant?: boolean }
  /** An instant-booking request (pending) was not accepted on the host's behalf in time: the host answers it like any request. */
  | { type: "booking.awaitingHost"; booking: Booking }
  /** A person sent a message in a booking's conversation. */
  | { type: "message.created"; booking: Booking; message: MessageRow }
  /** Someone read a conversation up to now. */
  | { type: "messages.read"; booking: Booking; readerId: string; at: number }
  /** The host gave part of a booking's payment back (docs/decisions/0051); its status is unchanged. `message` is the system message written with it. */
  | { type: "booking.refunded"; booking: Booking; amountCents: number; reason: string; message: MessageRow | null }
  /** A completed booking's host share was sent to the host's payout account. */
  | { type: "payout.sent"; booking: Booking; amountCents: number }
  /** Reviews of a booking became visible (double-blind: both sides wrote, or the 14 days ended). */
  | { type: "reviews.published"; booking: Booking; reviews: Review[] }
  /** Sessions ended (sign-out, an email change ending the others, a suspension): `all` of the user's, or these ids. */
  | { type: "sessions.ended"; userId: string; sessionIds: string[] | "all" };

/** How a booking's news came about, for the push notices and emails that tell it (src/notifications/). */
export interface BookingNews {
  /** Accepted on the host's behalf by instant booking. */
  instant?: boolean;
  /** An instant request the host answers after all (`booking.awaitingHost`). */
  awaitingHost?: boolean;
  /** Called off with its group session, short of its minimum to run (docs/decisions/0049). */
  notRunning?: boolean;
}

type Listener = (event: DomainEvent) => void | Promise<void>;

export class DomainEvents {
  private listeners: Listener[] = [];
  private running = new Set<Promise<void>>();

  on(listener: Listener) {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /**
   * Tells every listener, after the change is committed. The caller does not wait: a slow
   * listener (a push service) never holds up the answer to the person who made the change.
   */
  emit(event: DomainEvent): void {
    const run = Promise.all(
      this.listeners.map(async (listener) => {
        try {
          await listener(event);
        } catch (err) {
          console.error(`a listener of ${event.type} failed: ${loggable(err)}`);
        }
      }),
    ).then(() => undefined);
    this.running.add(run);
    void run.finally(() => this.running.delete(run));
  }

  /** Resolves once every listener started so far has finished (tests, and a clean shutdown). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all(this.running);
  }
}
