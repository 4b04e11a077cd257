/**
 * Where emails go: the contract the app is handed (`deps.mailer`), met by the outbox and SMTP
 * (src/email/mailer.ts) and by tests.
 */

/** One email, ready to send: the output of `composeEmail`, and the payload of an email job. */
export interface OutgoingEmail {
  /** What the email is (verify, reset, booking.accepted …): the outbox file's name and the log say it. */
  kind: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  /** Extra headers, such as List-Unsubscribe. */
  headers?: Record<string, string>;
  /** A calendar invitation (RFC 5545 text), sent as a `text/calendar` alternative and an `.ics` attachment. */
  calendar?: { method: "REQUEST" | "CANCEL"; filename: string; content: string };
  /** The links a person follows from it, printed to the log when emails go to the outbox. */
  links: string[];
}

export interface Mailer {
  /** `outbox` writes files; `smtp` hands emails to the configured server. */
  readonly mode: "smtp" | "outbox";
  /**
   * Sends one email. `messageId` is the same on every attempt of one email, so a receiver that
   * got it before the answer was lost can tell the copy for what it is. Throws when the server
   * refused it, could not be reached, or had not taken it by the send's deadline or `signal`
   * (the email job tries again).
   */
  send(email: OutgoingEmail, messageId: string, signal?: AbortSignal): Promise<void>;
  close(): void;
}
