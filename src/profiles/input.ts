import { z } from "zod";
import { BIO_MAX, INTEREST_MAX, INTERESTS_MAX, MIN_AGE, NAME_MAX, PASSWORD_MAX, PASSWORD_MIN, PROFILE_PHOTOS_MAX, USERNAME_MAX, USERNAME_MIN } from "../../shared/limits";
import { emailSchema } from "../auth/input";
import { ageOn } from "../../shared/dates";
import type { MessageKey } from "../texts";
import { firstIssue } from "../lib/validation";
import { acceptText, cleanText, userText } from "../lib/text";
import { ABOUT_TEXT_MAX } from "../../shared/limits";
import { aboutChoices, aboutFields, type About, type AboutVisibility } from "./about";
import { findCity, findCountry } from "../lib/places";

const msg = (key: MessageKey) => ({ message: key });

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

/** Lowercased as typed (spec §5), at least 3 characters; letters, digits, dots and underscores. */
export const usernameSchema = z
  .string(msg("profile.usernameRequired"))
  .overwrite((v) => cleanText(v))
  .toLowerCase()
  .min(1, msg("profile.usernameRequired"))
  .min(USERNAME_MIN, msg("profile.usernameTooShort"))
  .max(USERNAME_MAX, msg("profile.usernameTooLong"))
  .regex(/^[a-z0-9._]+$/, msg("profile.usernameCharacters"));

/** A real calendar date, not in the future, and at least 18 full years ago on `today`. */
export function birthdaySchema(today: () => Date) {
  return z
    .string(msg("profile.birthdayRequired"))
    .trim()
    .min(1, msg("profile.birthdayRequired"))
    .regex(/^\d{4}-\d{2}-\d{2}$/, msg("profile.birthdayInvalid"))
    .refine((v) => {
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
    }, msg("profile.birthdayInvalid"))
    .refine((v) => (ageOn(v, today()) ?? -1) >= 0 && (ageOn(v, today()) ?? 999) <= 120, msg("profile.birthdayInvalid"))
    .refine((v) => (ageOn(v, today()) ?? 0) >= MIN_AGE, msg("profile.ageRequirement"));
}

export const locationSchema = z
  .object({ country: z.unknown(), city: z.unknown() })
  .refine((v) => findCity(v.country, v.city) !== undefined, { message: "profile.locationRequired", path: ["city"] })
  .transform((v) => ({ country: findCountry(v.country)!.name, city: findCity(v.country, v.city)!.name }));

export const bioSchema = userText({
  kind: "multiline",
  invalid: "profile.bioInvalid",
  max: { length: BIO_MAX, message: "profile.bioTooLong" },
  characters: "profile.bioCharacters",
});

export const photosSchema = z
  .array(z.string(msg("profile.photosInvalid")).min(1, msg("profile.photosInvalid")).max(300, msg("profile.photosInvalid")), msg("profile.photosInvalid"))
  .max(PROFILE_PHOTOS_MAX, msg("profile.tooManyPhotos"));

/**
 * Interests as a list or as the edit form's comma-separated text; each one cleaned, empty ones
 * dropped, duplicates merged.
 */
export const interestsSchema = z
  .union([z.string(), z.array(z.string())], msg("profile.interestsInvalid"))
  .transform((raw, ctx) => {
    const list: string[] = [];
    for (const item of typeof raw === "string" ? raw.split(",") : raw) {
      const text = acceptText(item);
      if (text === null) {
        ctx.addIssue({ code: "custom", message: "profile.interestsCharacters" });
        return z.NEVER;
      }
      if (text.length > INTEREST_MAX) {
        ctx.addIssue({ code: "custom", message: "profile.interestsInvalid" });
        return z.NEVER;
      }
      if (text && !list.includes(text)) list.push(text);
    }
    if (list.length > INTERESTS_MAX) {
      ctx.addIssue({ code: "custom", message: "profile.interestsInvalid" });
      return z.NEVER;
    }
    return list;
  });

const aboutTextSchema = userText({
  invalid: "profile.aboutTextInvalid",
  max: { length: ABOUT_TEXT_MAX, message: "profile.aboutTextTooLong" },
  characters: "profile.aboutTextCharacters",
});

/** The about JSON: known fields only; choices from their lists; free text kept short. */
export const aboutSchema = z
  .record(z.string(), z.unknown())
  .transform((data, ctx) => {
    const out: About = {};
    for (const field of aboutFields) {
      const value = data[field.key];
      if (value === undefined || value === null || value === "") continue;
      if (field.kind === "text") {
        const r = aboutTextSchema.safeParse(value);
        if (!r.success) ctx.addIssue({ code: "custom", message: r.error.issues[0]!.message, path: [field.key] });
        else if (r.data) out[field.key] = r.data;
      } else if (field.kind === "choice") {
        const list = aboutChoices[field.key as keyof typeof aboutChoices] as readonly string[];
        if (typeof value !== "string" || !list.includes(value)) ctx.addIssue({ code: "custom", message: "profile.aboutChoiceInvalid", path: [field.key] });
        else out[field.key] = value;
      } else {
        const list = aboutChoices.spokenLanguages as readonly string[];
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && list.includes(v))) {
          ctx.addIssue({ code: "custom", message: "profile.aboutChoiceInvalid", path: [field.key] });
        } else if (value.length) out[field.key] = [...new Set(value as string[])];
      }
    }
    return out;
  });

export const visibilitySchema = z.record(z.string(), z.boolean()).transform((data) => {
  const out: AboutVisibility = {};
  for (const field of aboutFields) if (typeof data[field.visibilityKey] === "boolean") out[field.visibilityKey] = data[field.visibilityKey]!;
  return out;
});

/** JSON text or an object, as the spec's calls send about/aboutVisibility as JSON strings. */
export const jsonOrObject = z.union([z.string(), z.record(z.string(), z.unknown())], msg("profile.aboutInvalid")).transform((v, ctx) => {
  if (typeof v !== "string") return v;
  try {
    const parsed = JSON.parse(v || "{}");
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {}
  ctx.addIssue({ code: "custom", message: "profile.aboutInvalid" });
  return z.NEVER;
});

export const passwordChangeSchema = z
  .object({
    currentPassword: z.string(msg("account.currentPasswordRequired")).optional(),
    newPassword: z.string(msg("account.newPasswordTooShort")).min(PASSWORD_MIN, msg("account.newPasswordTooShort")).max(PASSWORD_MAX, msg("login.passwordTooLong")),
    confirmPassword: z.string(msg("account.confirmPasswordRequired")).optional(),
  })
  .superRefine((v, ctx) => {
    if (v.confirmPassword !== undefined) {
      if (!v.confirmPassword) ctx.addIssue({ code: "custom", message: "account.confirmPasswordRequired", path: ["confirmPassword"] });
      else if (v.confirmPassword !== v.newPassword) ctx.addIssue({ code: "custom", message: "account.passwordsDoNotMatch", path: ["confirmPassword"] });
    }
  });

export const emailChangeSchema = z.object({
  email: emailSchema,
  currentPassword: z.string().optional(),
});
export type EmailChange = z.infer<typeof emailChangeSchema>;
export type PasswordChange = z.infer<typeof passwordChangeSchema>;

/** A form's reading: its typed data, or a message per field (400). */
export type FormReading<T> = { ok: true; data: T } | { ok: false; status: 400; errors: Record<string, MessageKey> };

/** The email screen and `PUT /api/user/email`: the new address, and the current password. */
export function readEmailChange(body: Record<string, unknown>): FormReading<EmailChange> {
  const r = emailChangeSchema.safeParse(body);
  return r.success ? { ok: true, data: r.data } : { ok: false, status: 400, errors: { email: firstIssue(r.error) } };
}

/**
 * The password screen and `PUT /api/user/password`: the new password twice, and the current one
 * when the account has one (`needsCurrent`). Every field's message at once.
 */
export function readPasswordChange(body: Record<string, unknown>, needsCurrent: boolean): FormReading<PasswordChange> {
  const r = passwordChangeSchema.safeParse(body);
  const errors: Record<string, MessageKey> = {};
  if (needsCurrent && !(typeof body.currentPassword === "string" && body.currentPassword)) errors.currentPassword = "account.currentPasswordRequired";
  if (!r.success) for (const issue of r.error.issues) errors[String(issue.path[0])] ??= issue.message as MessageKey;
  if (Object.keys(errors).length || !r.success) return { ok: false, status: 400, errors };
  return { ok: true, data: r.data };
}
