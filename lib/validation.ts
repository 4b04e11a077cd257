import { z } from "zod";
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

/** A value sent as text, or nothing: anything else reads as nothing (a missing or malformed id finds no record). */
export const textOrNone = z.unknown().transform((v) => (typeof v === "string" ? v : undefined)).optional();
