import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import nodemailer from "nodemailer";
import type { Config } from "../config";
import { LANES } from "../jobs";
import type { Mailer, OutgoingEmail } from "../ports/mail";

/**
 * Where emails go (docs/decisions/0034): an SMTP server when `SMTP_URL` is set; otherwise each
 * email is written whole (headers, HTML, plain text, attachments) as an `.eml` file under
 * `DATA_DIR/outbox/`, and its links are printed to the log, so a machine with no mail server
 * still lets a person verify an address or reset a password.
 */

/** The folder the outbox writes to. */
export const outboxDir = (config: Pick<Config, "dataDir">) => join(config.dataDir, "outbox");

/** How long the SMTP client waits on the server before the send fails (and its job tries again later). */
export interface MailLimits {
  /** To connect: the name looked up, the TCP connection, TLS for `smtps://`. */
  connectMs: number;
  /** For the server's greeting once connected. */
  greetingMs: number;
  /** Of silence on an open connection. */
  idleMs: number;
  /**
   * For one whole send, however the server answers: a server that sends a byte now and then is
   * never silent long enough for `idleMs`, and would hold a send (and its place in the email
   * lane) for as long as it liked.
   */
  sendMs: number;
}

/** Under the email lane's limit per attempt (src/jobs/index.ts), so a send's own deadline says what happened. */
export const MAIL_LIMITS: MailLimits = { connectMs: 20_000, greetingMs: 20_000, idleMs: 20_000, sendMs: 60_000 };

function mailOptions(from: string, email: OutgoingEmail, messageId: string, signal?: AbortSignal) {
  return {
    signal,
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

export function makeMailer(config: Pick<Config, "dataDir" | "mail">, log: (line: string) => void = console.log, limits: Partial<MailLimits> = {}): Mailer {
  const { smtpUrl, from } = config.mail;
  if (smtpUrl) {
    const { connectMs, greetingMs, idleMs, sendMs } = { ...MAIL_LIMITS, ...limits };
    // Connections reused from one email to the next, one for each email the email lane sends at once.
    const transport = nodemailer.createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: LANES.email.concurrency,
      connectionTimeout: connectMs,
      greetingTimeout: greetingMs,
      socketTimeout: idleMs,
    } as Parameters<typeof nodemailer.createTransport>[0]);
    return {
      mode: "smtp",
      async send(email, messageId, signal) {
        // The send's deadline, or the job's limit if that comes first: either cancels this one
        // email (its connection is closed), and the other emails of the pool go on.
        const deadline = AbortSignal.timeout(sendMs);
        try {
          await transport.sendMail(mailOptions(from, email, messageId, signal ? AbortSignal.any([deadline, signal]) : deadline));
        } catch (err) {
          if (deadline.aborted) throw new Error(`the mail server had not taken the email after ${sendMs / 1000} s`, { cause: err });
          throw err;
        }
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
