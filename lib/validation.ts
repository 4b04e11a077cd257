import type { z } from "zod";
import { DomainError } from "./domain-error";
import { asRecord } from "./http";
import type { MessageKey } from "./i18n";

/**
 * The message of a failed check: our zod schemas carry catalogue keys as their messages, and a
 * field shows the first one.
 */
export const firstIssue = (error: { issues: readonly { message: string }[] }): MessageKey => error.issues[0]!.message as MessageKey;

/**
 * Whether a value sent as an id can be one of ours (a UUID): anything else is answered as not
 * found without a query.
 */
export const uuidLike = (id: unknown): id is string => typeof id === "string" && /^[0-9a-f-]{36}$/i.test(id);

/**
 * A route's reading of its body with the feature's schema (`input.ts`): anything but an object
 * reads as `{}`, so a missing body gets the same field messages as an empty one. A refusal is a
 * 400 `DomainError` with the first issue's message, or with `refusal` when the route answers
 * every bad shape alike.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, refusal?: MessageKey): z.output<S> {
  const read = schema.safeParse(asRecord(body));
  if (!read.success) throw new DomainError(refusal ?? firstIssue(read.error), 400);
  return read.data;
}
