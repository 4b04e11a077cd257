import { z } from "zod";
import { BIO_MAX, INTEREST_MAX, INTERESTS_MAX, MIN_AGE, PASSWORD_MAX, PASSWORD_MIN, PROFILE_PHOTOS_MAX, USERNAME_MAX, USERNAME_MIN } from "../../shared/limits";
import { emailSchema, firstNameSchema, lastNameSchema } from "../auth/input";
import { ageOn } from "../../shared/dates";
import type { MessageKey } from "../../lib/i18n";
import { firstIssue, textOrNone } from "../../lib/validation";
import { acceptText, cleanText, userText } from "../../lib/text";
import { ABOUT_TEXT_MAX } from "../../shared/limits";
import { aboutChoices, aboutFields, type About, type AboutVisibility } from "./about";
import { findCity, findCountry } from "../../lib/places";
import { listFrom } from "../../lib/http";
import { onboardingStep, PHOTO_STEP } from "./onboarding";

const msg = (key: MessageKey) => ({ message: key });

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

/**
 * The email screen and `PUT /api/user/email`: the new address, and the current password (checked
 * by the service, which asks for it when the account has one).
 */
export const emailChangeSchema = z.object({
  email: emailSchema,
  currentPassword: textOrNone,
});
export type EmailChange = z.infer<typeof emailChangeSchema>;
export type PasswordChange = z.infer<typeof passwordChangeSchema>;

/* A profile's changes (`PUT /api/user/profile` and every screen that edits the profile). */

/**
 * A change of the profile, each field checked by its rule, in the domain's terms; a field left
 * out is left as it is. What needs the account itself (whether a username is free, whose photos
 * these are, a city in the account's own country) is checked by `updateProfile`.
 */
export interface ProfileChanges {
  firstName?: string;
  lastName?: string;
  /** `name` of one word: the first name changes and the account's last name stays (it must have one). */
  keepsLastName?: true;
  username?: string;
  dateOfBirth?: string;
  /** A listed country and one of its cities, or a city of the account's own country. */
  place?: { country: string; city: string } | { city: string };
  bio?: string | null;
  /** The photos, in order, without repeats (the first is the main one). */
  photos?: string[];
  /** The photo to make the main one (null: none asked). */
  photo?: string | null;
  interests?: string[];
  about?: About;
  aboutVisibility?: AboutVisibility;
}

/** A field's refusal inside a schema's transform: its message, under its name. */
const refuse = (ctx: z.RefinementCtx, field: string, message: MessageKey) => ctx.addIssue({ code: "custom", message, path: [field] });

/** The photos as a list (the forms send it as JSON text), each a path. */
const photoListSchema = z.unknown().transform(listFrom).pipe(photosSchema);

/** The about section's visibility flags, as JSON text or an object; anything unreadable is one refusal. */
const aboutVisibilitySchema = z.unknown().transform((v, ctx) => {
  const read = jsonOrObject.pipe(visibilitySchema).safeParse(v);
  if (read.success) return read.data;
  ctx.addIssue({ code: "custom", message: "profile.aboutInvalid" });
  return z.NEVER;
});

/** A profile field's rule, by the name the spec's calls and the forms send it under. */
function profileFields(today: () => Date) {
  return {
    name: z.unknown().optional(),
    firstName: firstNameSchema.optional(),
    lastName: lastNameSchema.optional(),
    username: usernameSchema.optional(),
    dateOfBirth: birthdaySchema(today).optional(),
    country: z.unknown().optional(),
    city: z.unknown().optional(),
    bio: z.preprocess((v) => v ?? "", bioSchema).optional(),
    photos: photoListSchema.optional(),
    photo: z.unknown().optional(),
    interests: interestsSchema.optional(),
    about: jsonOrObject.pipe(aboutSchema).optional(),
    aboutVisibility: aboutVisibilitySchema.optional(),
  };
}
type ProfileFields = z.output<z.ZodObject<ReturnType<typeof profileFields>>>;

/** The fields read, in the domain's terms: the name split, the place found, the main photo put first. */
function profileChanges(sent: ProfileFields, ctx: z.RefinementCtx): ProfileChanges {
  const changes: ProfileChanges = {};
  // Names: firstName/lastName, or `name` split as the Name screen loads it (first word, rest).
  if (sent.name !== undefined && sent.firstName === undefined && sent.lastName === undefined) {
    if (typeof sent.name !== "string") refuse(ctx, "name", "profile.firstNameRequired");
    else {
      const [first = "", ...rest] = cleanText(sent.name).split(/\s+/);
      const firstName = firstNameSchema.safeParse(first);
      if (firstName.success) changes.firstName = firstName.data;
      else refuse(ctx, "firstName", firstIssue(firstName.error));
      if (!rest.length) changes.keepsLastName = true;
      else {
        const lastName = lastNameSchema.safeParse(rest.join(" "));
        if (lastName.success) changes.lastName = lastName.data;
        else refuse(ctx, "lastName", firstIssue(lastName.error));
      }
    }
  }
  if (sent.firstName !== undefined) changes.firstName = sent.firstName;
  if (sent.lastName !== undefined) changes.lastName = sent.lastName;
  if (sent.username !== undefined) changes.username = sent.username;
  if (sent.dateOfBirth !== undefined) changes.dateOfBirth = sent.dateOfBirth;
  if (sent.country !== undefined) {
    const place = locationSchema.safeParse({ country: sent.country, city: sent.city });
    if (place.success) changes.place = place.data;
    else refuse(ctx, "city", firstIssue(place.error));
  } else if (sent.city !== undefined) {
    // A city alone is looked for in the account's own country.
    if (typeof sent.city === "string") changes.place = { city: sent.city };
    else refuse(ctx, "city", "profile.locationRequired");
  }
  if (sent.bio !== undefined) changes.bio = sent.bio || null;
  if (sent.photos !== undefined) changes.photos = [...new Set(sent.photos)];
  if (sent.photo !== undefined) {
    if (sent.photo !== null && typeof sent.photo !== "string") refuse(ctx, "photos", "profile.photosInvalid");
    else changes.photo = sent.photo || null;
  }
  if (sent.interests !== undefined) changes.interests = sent.interests;
  if (sent.about !== undefined) changes.about = sent.about;
  if (sent.aboutVisibility !== undefined) changes.aboutVisibility = sent.aboutVisibility;
  return changes;
}

/**
 * `PUT /api/user/profile`: any subset of the profile's fields, each checked with its rule; every
 * refused field's message at once. Nothing is written unless every given field is valid.
 */
export const profileChangesSchema = (today: () => Date) => z.object(profileFields(today)).transform(profileChanges);

/** `PUT /api/user/username`: the username alone (nothing sent reads as empty). */
export const usernameBody = z.object({ username: z.preprocess((v) => v ?? "", usernameSchema) });

/**
 * A username as typed in a field that checks it as it is typed: the username it is, or why it is
 * none (`unknown` when nothing was typed: the field shows no status).
 */
export type TypedUsername = { username: string } | { state: "unknown" | "tooShort" | "invalid"; message: MessageKey };

const typedUsernameSchema = z.unknown().optional().transform((typed): TypedUsername => {
  const read = usernameSchema.safeParse(typeof typed === "string" ? typed : "");
  if (read.success) return { username: read.data };
  const message = firstIssue(read.error);
  if (typeof typed !== "string" || !typed.trim()) return { state: "unknown", message };
  return { state: message === "profile.usernameTooShort" ? "tooShort" : "invalid", message };
});

/** `GET /api/check-username` and the username field's status: what was typed, and which screen asks. */
export const usernameQuery = z.object({
  username: typedUsernameSchema,
  screen: z.unknown().optional().transform((v) => (v === "settings" ? "settings" : "onboarding")),
});

/**
 * The settings location card: a listed country, and the city if it is one of that country's, else
 * the country's first city (choosing a country resets the city).
 */
export const locationBody = z.object({ country: z.unknown().optional(), city: z.unknown().optional() }).transform((sent, ctx): ProfileChanges => {
  const country = findCountry(sent.country);
  const city = country?.cities.find((c) => c.name === sent.city) ?? country?.cities[0];
  if (!country || !city) {
    refuse(ctx, "city", "profile.locationRequired");
    return z.NEVER;
  }
  return { place: { country: country.name, city: city.name } };
});

/** A single-field settings screen's body: its fields, a field left out read as empty. */
const screenBody = <S extends Record<string, z.ZodType>>(shape: S) =>
  z.object(Object.fromEntries(Object.entries(shape).map(([field, schema]) => [field, z.preprocess((v) => v ?? "", schema)])) as { [K in keyof S]: z.ZodPipe<z.ZodTransform, S[K]> });

/** The settings screens that change the profile: first name, name, birthday, username. */
export const settingsBodies = (today: () => Date) => ({
  "first-name": screenBody({ firstName: firstNameSchema }),
  name: screenBody({ firstName: firstNameSchema, lastName: lastNameSchema }),
  birthday: screenBody({ dateOfBirth: birthdaySchema(today) }),
  username: screenBody({ username: usernameSchema }),
});

/** Copies a nested schema's refusals into the form's own, field by field. */
const refuseAll = (ctx: z.RefinementCtx, issues: readonly z.core.$ZodIssue[]) => {
  for (const issue of issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
};

/**
 * Onboarding's form: the step and the fields it saves (a field left out counts as empty; the
 * photo step needs a photo). Not a step at all reads as `step: null` (back to onboarding). A
 * refused form is drawn again from the body as sent (`refused.screen`).
 */
export const onboardingBody = (today: () => Date) => {
  const changes = profileChangesSchema(today);
  return z.record(z.string(), z.unknown()).transform((sent, ctx) => {
    const step = Number(sent.step);
    const spec = onboardingStep(step);
    if (!spec) return { step: null, changes: {} as ProfileChanges };
    if (step === PHOTO_STEP && !listFrom(sent.photos)?.length) {
      refuse(ctx, "photos", "profile.photoRequired");
      return z.NEVER;
    }
    const read = changes.safeParse(Object.fromEntries(spec.fields.map((field) => [field, sent[field] ?? ""])));
    if (!read.success) {
      refuseAll(ctx, read.error.issues);
      return z.NEVER;
    }
    return { step, changes: read.data };
  });
};

/**
 * Edit profile's about fields as the form sends them: `about_<key>` for text and a choice,
 * `about_<key>_<choice>` ticked for each choice of a multiple one, and `visible_<key>` for each
 * field's visibility switch (off when not sent).
 */
export function aboutOfForm(form: Record<string, unknown>): { about: Record<string, unknown>; visibility: AboutVisibility } {
  const about: Record<string, unknown> = {};
  const visibility: AboutVisibility = {};
  for (const f of aboutFields) {
    if (f.kind === "multi") {
      about[f.key] = Object.keys(form)
        .filter((k) => k.startsWith(`about_${f.key}_`) && form[k])
        .map((k) => k.slice(`about_${f.key}_`.length));
    } else if (typeof form[`about_${f.key}`] === "string") about[f.key] = form[`about_${f.key}`];
    visibility[f.visibilityKey] = Boolean(form[`visible_${f.visibilityKey}`]);
  }
  return { about, visibility };
}

/**
 * Edit profile's form: its photo list (always sent, as JSON text: without it, this is not that
 * form), bio, interests and about fields (`aboutOfForm`). A refused form is drawn again from the
 * body as sent (`refused.screen`).
 */
export const editProfileBody = (today: () => Date) => {
  const changes = profileChangesSchema(today);
  return z.record(z.string(), z.unknown()).transform((sent, ctx) => {
    if (typeof sent.photos !== "string") {
      ctx.addIssue({ code: "custom", message: "error.badRequest" });
      return z.NEVER;
    }
    const { about, visibility } = aboutOfForm(sent);
    const read = changes.safeParse({ photos: sent.photos, bio: sent.bio ?? "", interests: sent.interests ?? "", about, aboutVisibility: visibility });
    if (!read.success) {
      refuseAll(ctx, read.error.issues);
      return z.NEVER;
    }
    return { changes: read.data };
  });
};

/** A profile's address (`/profile/:username`): a name that cannot be read (`%ZZ`) is no one's. */
export const usernameParams = z.object({ username: z.string().nullish().transform((name) => name ?? "") });
