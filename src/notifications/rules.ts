/** The rules of notifications that input, service and screens share. */

/** The spec's eight preferences, in the order the Settings card shows them. */
export const PREFERENCE_KEYS = [
  "bookingRequests",
  "bookingConfirmations",
  "messages",
  "reviews",
  "activityUpdates",
  "paymentNotifications",
  "reminders",
  "marketingEmails",
] as const;
export type PreferenceKey = (typeof PREFERENCE_KEYS)[number];
export type Preferences = Record<PreferenceKey, boolean>;

/** Everything on except marketing (spec §9), until the person changes one. */
export const DEFAULT_PREFERENCES: Readonly<Preferences> = {
  bookingRequests: true,
  bookingConfirmations: true,
  messages: true,
  reviews: true,
  activityUpdates: true,
  paymentNotifications: true,
  reminders: true,
  marketingEmails: false,
};

