import { z } from "zod";
import { safeNext } from "./http";
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

/** The page to go on to after a form (`next`): one of our own paths, else `fallback`. */
export const nextSchema = (fallback = "/") => z.unknown().optional().transform((next) => safeNext(next, fallback));
