/**
 * Every limit of what people write, upload and send: lengths, counts, sizes and amounts, read by
 * the server's checks (src/…/input.ts, the services, the body reader), its pages (views/) and the
 * islands (islands/), so a counter, a `maxlength` and the server's refusal always agree. One
 * constant a limit, here only. Pure values: no JSX, no imports.
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
/**
 * Durations are whole steps of this many minutes, from `DURATION_MIN` to `DURATION_MAX`; an
 * activity whose host set no longest duration may be booked up to `DURATION_MAX`.
 */
export const DURATION_STEP = 30;
export const DURATION_MIN = 30;
export const DURATION_MAX = 240;
/**
 * Highest price accepted (an hourly rate, a spot, a private group), in minor units of the
 * activity's currency: a typo guard, not a business rule. The same number in every currency keeps
 * amounts far inside safe integers, and is 10,000.00 in dollars, euros or pounds, ¥1,000,000 in yen.
 */
export const RATE_MAX_MINOR = 1_000_000;

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
/** Interests on one profile, at most, each at most `INTEREST_MAX` characters. */
export const INTERESTS_MAX = 10;
export const INTEREST_MAX = 30;
/** The youngest age, in years, at which one may have an account. */
export const MIN_AGE = 18;

// Accounts.
/** A new password: at least `PASSWORD_MIN` characters; any password at most `PASSWORD_MAX`. */
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 200;

/** Spec §5 Review: the optional comment, at most this many characters. */
export const REVIEW_TEXT_MAX = 500;

/** Spec §3 Report: the optional notes, at most this many characters. */
export const REPORT_NOTES_MAX = 500;

// Messages.
/** A chat message, at most this many UTF-16 code units (what a textarea's `maxlength` counts). */
export const MAX_MESSAGE_LENGTH = 2000;
/** The message a guest sends with a booking request, once cleaned: every flow, form and island reads this. */
export const MAX_BOOKING_MESSAGE = 1000;
/** The reason a host gives the guest for a partial refund, once cleaned. */
export const MAX_REFUND_REASON = 500;

// Availability (docs/decisions/0037-availability.md).
/** Ranges of weekly hours on one day, at most. */
export const MAX_RANGES_PER_DAY = 6;
/** A block's note (for the host's eyes only), at most this many characters. */
export const MAX_BLOCK_NOTE = 200;
/** The longest day-off range one entry may cover, in days. */
export const MAX_BLOCK_DAYS = 366;
/** Days off and blocked times ahead, per host, at most. */
export const MAX_BLOCKS = 200;
/** An outside calendar's address, at most this many characters. */
export const BUSY_URL_MAX = 2000;

// Notifications.
/** The test notification's own title and body, at most this many characters each. */
export const TEST_TITLE_MAX = 100;
export const TEST_BODY_MAX = 300;
/** Browsers one person may have push notifications on in; a new one replaces the least recently renewed. */
export const MAX_SUBSCRIPTIONS_PER_USER = 10;
/** The longest push endpoint kept: browsers' are far shorter. */
export const MAX_ENDPOINT_LENGTH = 2048;

// Photos.
/** A photo as uploaded, at most this many bytes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** A photo's width × height, at most (a small file can decode to a huge image). */
export const MAX_PIXELS = 40_000_000;
/** The longest upload URL read: ours and a bucket's are far shorter. */
export const IMAGE_URL_MAX = 4000;

// Request bodies (lib/body.ts).
/**
 * JSON, forms (urlencoded or multipart) and text: 64 KB. The largest real form, a profile with
 * every list filled, stays under 25 KB even when each character percent-encodes to 9 bytes;
 * 64 KB leaves room and parses in well under a millisecond.
 */
export const BODY_LIMIT = 64 * 1024;
/** Forms: 200 fields at most. The longest form (a profile with every box ticked) has under 60. */
export const MAX_FIELDS = 200;
/** A payment provider's notification (its webhook) is small; Stripe's are a few kilobytes. */
export const WEBHOOK_BODY_LIMIT = 512 * 1024;
/** A payment intent's id as a provider names it (Stripe's are under 40 characters). */
export const PAYMENT_INTENT_ID_MAX = 200;
