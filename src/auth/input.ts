import { z } from "zod";
import { PASSWORD_MAX, PASSWORD_MIN } from "../../shared/limits";
import type { MessageKey } from "../texts";

/** Error messages are catalogue keys; the edge translates them into the visitor's language. */
const msg = (key: MessageKey) => ({ message: key });

export const emailSchema = z
  .string(msg("login.invalidEmail"))
  .trim()
  .toLowerCase()
  .max(254, msg("login.invalidEmail"))
  .pipe(z.email(msg("login.invalidEmail")));

export const signInSchema = z.object({
  email: emailSchema,
  password: z.string(msg("login.passwordRequired")).min(1, msg("login.passwordRequired")).max(PASSWORD_MAX, msg("login.passwordTooLong")),
});

export const signUpSchema = z.object({
  email: emailSchema,
  password: z
    .string(msg("login.passwordRequired"))
    .min(1, msg("login.passwordRequired"))
    .min(PASSWORD_MIN, msg("login.passwordTooShort"))
    .max(PASSWORD_MAX, msg("login.passwordTooLong")),
});

export type Credentials = z.infer<typeof signInSchema>;

/** The first problem per field, as catalogue keys. */
export function fieldErrors(error: z.ZodError): Record<string, MessageKey> {
  const out: Record<string, MessageKey> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? "form");
    if (!(field in out)) out[field] = issue.message as MessageKey;
  }
  return out;
}
