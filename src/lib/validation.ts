import type { MessageKey } from "./i18n";

/**
 * The message of a failed check: our zod schemas carry catalogue keys as their messages, and a
 * field shows the first one.
 */
export const firstIssue = (error: { issues: readonly { message: string }[] }): MessageKey => error.issues[0]!.message as MessageKey;
