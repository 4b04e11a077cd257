/**
 * The length and count limits of what people write and upload, read by the server's checks
 * (src/…/input.ts), its pages (views/) and the islands (islands/), so a counter, a `maxlength`
 * and the server's refusal always agree. Pure values: no JSX, nothing server-only.
 * (The catalogue's sentences that name a limit, "at most 50 characters", still write it out.)
 */

// Activities (spec §5 Activity).
/** An activity's title, at most this many characters. */
export const ACTIVITY_TITLE_MAX = 50;
/** An activity's description, at most this many characters. */
export const ACTIVITY_DESCRIPTION_MAX = 200;
/** An activity's meeting point, at most this many characters. */
export const MEETING_POINT_MAX = 200;
/** Photos of one activity, at most. */
export const ACTIVITY_PHOTOS_MAX = 6;
/** Durations are whole steps of this many minutes, from `DURATION_MIN` to `DURATION_MAX`. */
export const DURATION_STEP = 30;
export const DURATION_MIN = 30;
export const DURATION_MAX = 240;

// Profiles (spec §5 User).
/** First and last names, at most this many characters each. */
export const NAME_MAX = 50;
export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;
/** The profile's bio, at most this many characters. */
export const BIO_MAX = 500;
/** Each free-text answer of the "about" section, at most this many characters. */
export const ABOUT_TEXT_MAX = 80;
/** Photos on one profile, at most. */
export const PROFILE_PHOTOS_MAX = 6;

// Accounts.
/** A new password: at least `PASSWORD_MIN` characters; any password at most `PASSWORD_MAX`. */
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 200;

/** Spec §5 Review: the optional comment, at most this many characters. */
export const REVIEW_TEXT_MAX = 500;

/** Spec §3 Report: the optional notes, at most this many characters. */
export const REPORT_NOTES_MAX = 500;
