import { z } from "zod";
import { NAME_MAX, PASSWORD_MAX, PASSWORD_MIN } from "../../shared/limits";
import { userText } from "../../lib/text";
import { nextSchema } from "../../lib/validation";
import { locales, type MessageKey } from "../../lib/i18n";

/** Error messages are catalogue keys; the edge translates them into the visitor's language. */
const msg = (key: MessageKey) => ({ message: key });

/** A person's names, as sign-up with a provider and the profile both read them. */
export const firstNameSchema = userText({
  invalid: "profile.firstNameRequired",
  required: "profile.firstNameRequired",
  max: { length: NAME_MAX, message: "profile.nameTooLong" },
  characters: "profile.firstNameCharacters",
});
export const lastNameSchema = userText({
  invalid: "profile.lastNameRequired",
  required: "profile.lastNameRequired",
  max: { length: NAME_MAX, message: "profile.nameTooLong" },
  characters: "profile.lastNameCharacters",
});

export const emailSchema = z
  .string(msg("login.invalidEmail"))
  .trim()
  .toLowerCase()
  .max(254, msg("login.invalidEmail"))
  .pipe(z.email(msg("login.invalidEmail")));

/** Any password, as typed to sign in (or to prove an account is one's own). */
export const passwordSchema = z.string(msg("login.passwordRequired")).min(1, msg("login.passwordRequired")).max(PASSWORD_MAX, msg("login.passwordTooLong"));

/** A password being chosen: at least `PASSWORD_MIN` characters. */
export const newPasswordSchema = z
  .string(msg("login.passwordRequired"))
  .min(1, msg("login.passwordRequired"))
  .min(PASSWORD_MIN, msg("login.passwordTooShort"))
  .max(PASSWORD_MAX, msg("login.passwordTooLong"));

export const signInSchema = z.object({ email: emailSchema, password: passwordSchema });
export const signUpSchema = z.object({ email: emailSchema, password: newPasswordSchema });

export type Credentials = z.infer<typeof signInSchema>;

/** `POST /api/login`: the credentials, and the page to go on to. */
export const signInBody = signInSchema.extend({ next: nextSchema() });
/** `POST /api/register`: the new account's credentials, and the page to go on to. */
export const signUpBody = signUpSchema.extend({ next: nextSchema() });

/** `POST /api/locale`: one of the app's languages, and the page to go back to. */
export const localeBody = z.object({ locale: z.enum(locales, msg("error.badRequest")), next: nextSchema() });

/** `POST /api/auth/verify-email/resend`: the page to go back to (Settings by default). */
export const resendBody = z.object({ next: nextSchema("/settings/account") });

/** A token as it appears in a link: 32 random bytes in base64url (43 characters). */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The token from a query, form value or cookie, or null when it cannot be one (never hashed then). */
export function tokenFrom(value: unknown): string | null {
  return typeof value === "string" && TOKEN_SHAPE.test(value) ? value : null;
}

/** A link's token as sent: null when it cannot be one (answered as a link that no longer works). */
const tokenSchema = z.unknown().optional().transform(tokenFrom);

/** The token of an emailed link, in its address or sent back by its page's button. */
export const tokenInput = z.object({ token: tokenSchema });

/** "Forgot password?": the address to send a reset link to. */
export const forgotBody = z.object({ email: emailSchema });

/**
 * A new password from a reset link. The link is looked at first: a token that cannot be one is
 * refused as such, whatever the password.
 */
export const resetBody = z.object({ token: tokenSchema, password: z.unknown().optional() }).transform((sent, ctx) => {
  if (!sent.token) {
    ctx.addIssue({ code: "custom", message: "reset.invalid", path: ["token"] });
    return z.NEVER;
  }
  const password = newPasswordSchema.safeParse(sent.password);
  if (!password.success) {
    ctx.addIssue({ code: "custom", message: password.error.issues[0]!.message, path: ["password"] });
    return z.NEVER;
  }
  return { token: sent.token, password: password.data };
});

/** Proving an account is one's own with its password, to join a provider's sign-in to it. */
export const linkPasswordBody = z.object({ password: passwordSchema });

/** One value of a query, or null when it is sent as anything else (missing, or repeated). */
const oneValue = z.unknown().optional().transform((v) => (typeof v === "string" ? v : null));

/**
 * A provider's answer at our callback: `code` and `state`, and `iss` (RFC 9207) as absent
 * (undefined), one value, or null when it is anything else: sent twice, it is never accepted,
 * whichever value comes last.
 */
export const callbackQuery = z.object({
  code: oneValue,
  state: oneValue,
  iss: z.unknown().optional().transform((iss) => (iss === undefined ? undefined : typeof iss === "string" ? iss : null)),
});

/** The callback's `iss` as read: absent (undefined), one value, or null when it was anything else. */
export type SentIssuer = z.output<typeof callbackQuery>["iss"];
