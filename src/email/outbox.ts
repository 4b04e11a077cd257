import type { WriteTx } from "../../db/client";
import { EmailLayout, emailText, type EmailContent } from "./layout";
import type { Deps } from "../deps";
import { defineJob, scheduleJob } from "../jobs";
import { loggable } from "../../db/faults";
import type { OutgoingEmail } from "../ports/mail";

/**
 * Emails as durable jobs (docs/decisions/0034): an email is written as a job, in the transaction
 * of the change it tells of when there is one, and sent once that change is committed; a failed
 * send is tried again, and a restart finds the job where it was. Delivery is at least once: the
 * Message-ID is the same on every attempt, so a copy sent twice reads as one.
 */

export type { EmailContent } from "./layout";

/** The email `content` as it goes out: HTML in the one layout, the same as plain text, and the unsubscribe headers. */
export function composeEmail(deps: Pick<Deps, "config">, kind: string, to: string, content: EmailContent): OutgoingEmail {
  const siteUrl = deps.config.publicUrl;
  const siteName = "Offline";
  const headers: Record<string, string> = {};
  if (content.unsubscribe) {
    // RFC 8058: a mail program's own "Unsubscribe" posts `List-Unsubscribe=One-Click` to this address.
    headers["List-Unsubscribe"] = `<${content.unsubscribe.url}>`;
    headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click";
  }
  return {
    kind,
    to,
    subject: content.subject,
    html: String(EmailLayout({ content, siteName, siteUrl })),
    text: emailText(content, siteName),
    headers,
    links: [content.action?.url, content.unsubscribe?.url].filter((l): l is string => !!l),
  };
}

/** A Message-ID made from the email job's key: the same for every attempt at one email. */
function messageIdOf(deps: Deps, key: string) {
  const digest = new Bun.CryptoHasher("sha256").update(key).digest("hex").slice(0, 32);
  return `<${digest}@${new URL(deps.config.publicUrl).hostname}>`;
}

export const emailJob = defineJob<{ key: string; email: OutgoingEmail }>({
  kind: "email.send",
  lane: "email",
  // 30 s, 1, 2, 4 … up to an hour between attempts: about eight hours in all.
  maxAttempts: 14,
  async run({ key, email }, { deps, signal }) {
    await deps.mailer.send(email, messageIdOf(deps, key), signal);
  },
});

/**
 * Writes an email as a job (in `db`, which may be the transaction of the change it tells of).
 * `key` is the email's identity: queuing the same key twice sends it once. Returns the job key,
 * to hand to `sendQueuedEmails` once the transaction is committed.
 */
export async function queueEmail(tx: WriteTx, deps: Pick<Deps, "now">, key: string, email: OutgoingEmail, at = deps.now()): Promise<string> {
  const jobKey = `email:${key}`;
  await scheduleJob(tx, emailJob, { key: jobKey, email }, { at, key: jobKey });
  return jobKey;
}

/**
 * Sends queued emails at once, without holding up the caller's answer: those that fail stay
 * with the job runner, which tries them again.
 */
export function sendQueuedEmails(deps: Deps, jobKeys: string[]) {
  if (!jobKeys.length) return;
  void deps.jobs.runNow(jobKeys).catch((err) => console.error(`sending emails failed: ${loggable(err)}`));
}
