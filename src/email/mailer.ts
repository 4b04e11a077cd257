import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { Config } from "../config";

/**
 * Where emails go (docs/decisions/0034): an SMTP server when `SMTP_URL` is set; otherwise each
 * email is written whole (headers, HTML, plain text, attachments) as an `.eml` file under
 * `DATA_DIR/outbox/`, and its links are printed to the log, so a machine with no mail server
 * still lets a person verify an address or reset a password.
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
   * refused it or could not be reached (the email job tries again).
   */
  send(email: OutgoingEmail, messageId: string): Promise<void>;
  close(): void;
}

/** The folder the outbox writes to. */
export const outboxDir = (config: Pick<Config, "dataDir">) => join(config.dataDir, "outbox");

/** How long to wait for an SMTP server to connect, greet and answer, before trying again later. */
const SMTP_TIMEOUT_MS = 20_000;

function mailOptions(from: string, email: OutgoingEmail, messageId: string) {
  return {
    from,
    to: email.to,
    subject: email.subject,
    html: email.html,
    text: email.text,
    messageId,
    headers: email.headers,
    icalEvent: email.calendar ? { method: email.calendar.method, filename: email.calendar.filename, content: email.calendar.content } : undefined,
  };
}

export function makeMailer(config: Pick<Config, "dataDir" | "mail">, log: (line: string) => void = console.log): Mailer {
  const { smtpUrl, from } = config.mail;
  if (smtpUrl) {
    // One connection reused for a few emails at once (the job runner sends them one by one).
    const transport = nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: 2,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return {
      mode: "smtp",
      async send(email, messageId) {
        await transport.sendMail(mailOptions(from, email, messageId));
      },
      close: () => transport.close(),
    };
  }

  const dir = outboxDir(config);
  const writer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" });
  return {
    mode: "outbox",
    async send(email, messageId) {
      const info = await writer.sendMail(mailOptions(from, email, messageId));
      mkdirSync(dir, { recursive: true });
      // Named so that `ls` lists them in the order they were sent; written whole, then renamed,
      // so a reader never opens half an email.
      const stamp = new Date().toISOString().replace(/[:.]/g, "-");
      const name = `${stamp}-${email.kind.replace(/[^a-z0-9.-]/gi, "_")}-${crypto.randomUUID().slice(0, 8)}.eml`;
      const file = join(dir, name);
      writeFileSync(`${file}.tmp`, info.message as Buffer);
      renameSync(`${file}.tmp`, file);
      log(`email ${email.kind} to ${email.to}: ${file}${email.links.map((link) => `\n  ${link}`).join("")}`);
    },
    close: () => writer.close(),
  };
}
