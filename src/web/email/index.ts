import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { emailJob } from "../../email/outbox";

/**
 * Email, the transport every feature's emails go through (docs/decisions/0034): the mailer, the
 * outbox of durable sending jobs, calendar attachments and signed unsubscribe links. It knows no
 * feature: the unsubscribe pages, which change notification preferences, are notifications' own.
 */
export const emailFeature = (deps: Deps) => {
  deps.jobs.register(emailJob);
  return new Elysia({ name: "offline.email.feature", seed: deps.id });
};
