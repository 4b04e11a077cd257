import { z } from "zod";
import { PREFERENCE_KEYS, type Preferences } from "./rules";
import { MAX_ENDPOINT_LENGTH, TEST_BODY_MAX, TEST_TITLE_MAX } from "../../shared/limits";

/**
 * `POST /api/notifications/preferences`: exactly one preference, as a boolean
 * (`{"messages": false}`), as the Settings switches send them one at a time.
 */
export const preferenceChange = z
  .partialRecord(z.enum(PREFERENCE_KEYS, { message: "notifications.error.preference" }), z.boolean({ message: "notifications.error.preference" }), { message: "notifications.error.preference" })
  .refine((change) => Object.keys(change).length === 1, { message: "notifications.error.preference" });

/**
 * `POST /settings/notifications`, the Settings form without JavaScript: every switch at once, a
 * ticked box is on (a form with none ticked may send nothing but its token, or nothing at all).
 */
export const preferencesForm = z
  .record(z.string(), z.unknown())
  .optional()
  .transform((form = {}): Preferences => {
    const on = (value: unknown) => value === "on" || value === "true" || value === true;
    return Object.fromEntries(PREFERENCE_KEYS.map((key) => [key, on(form[key])])) as Preferences;
  });

const endpoint = z.string({ message: "notifications.error.subscription" }).min(1, { message: "notifications.error.subscription" }).max(MAX_ENDPOINT_LENGTH, { message: "notifications.error.subscription" });
const key = z.string({ message: "notifications.error.subscription" }).max(200, { message: "notifications.error.subscription" });

/**
 * `POST /api/notifications/subscribe`: a browser's push subscription as
 * `PushSubscription.toJSON()` gives it. Its address and keys are checked further by the service
 * (`readSubscription`: where it leads, what the keys decode to).
 */
export const subscriptionInput = z.object(
  {
    endpoint,
    keys: z.object({ p256dh: key, auth: key }, { message: "notifications.error.subscription" }),
  },
  { message: "notifications.error.subscription" },
);
export type SubscriptionInput = z.infer<typeof subscriptionInput>;

/** `POST /api/notifications/unsubscribe`: the browser's `endpoint`. */
export const unsubscribeInput = z.object({ endpoint }, { message: "notifications.error.subscription" });

/** A test notification's optional text: one line, trimmed; absent is the default text. */
const testText = (max: number) =>
  z
    .string({ message: "notifications.error.testText" })
    .refine((v) => v.trim().length <= max, { message: "notifications.error.testText" })
    .transform((v) => v.replace(/\s+/g, " ").trim())
    .nullish()
    .transform((v) => v ?? "");

/** `POST /api/notifications/test` (`title`, `body`, both optional). */
export const testInput = z.object({ title: testText(TEST_TITLE_MAX), body: testText(TEST_BODY_MAX) });
export type TestInput = z.infer<typeof testInput>;

/**
 * The one-click unsubscribe address, `/email/unsubscribe?t=…`: its signed token as text (none, or
 * anything else, is an empty one, which reads as no token of ours).
 */
export const unsubscribeLinkQuery = z.object({ t: z.unknown().optional().transform((v) => (typeof v === "string" ? v : "")) });
