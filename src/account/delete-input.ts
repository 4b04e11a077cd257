import { z } from "zod";
import { PASSWORD_MAX } from "../../shared/limits";
import type { MessageKey } from "../../lib/i18n";

const msg = (key: MessageKey) => ({ message: key });

/**
 * What confirms a deletion (`POST /settings/delete-account`, `POST /api/account/delete`): the
 * account's password, or, for an account that signs in only through a provider, its email typed
 * out. Which one is needed is the account's to say (src/account/delete.ts); both are optional here.
 */
export const deletionConfirmationSchema = z.object({
  password: z.string(msg("deletion.passwordRequired")).max(PASSWORD_MAX, msg("deletion.passwordWrong")).optional(),
  email: z.string(msg("deletion.emailRequired")).max(320, msg("deletion.emailWrong")).optional(),
});

export type DeletionConfirmation = z.infer<typeof deletionConfirmationSchema>;

/** An operator's deletion: the address the person wrote from, and the operator's own confirmation that it is that account. */
export const operatorDeletionSchema = z.object({
  email: z.string(msg("deletion.admin.emailRequired")).trim().toLowerCase().min(1, msg("deletion.admin.emailRequired")).max(320, msg("deletion.admin.emailRequired")),
});

export type OperatorDeletion = z.infer<typeof operatorDeletionSchema>;
