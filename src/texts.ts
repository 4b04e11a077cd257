import { registerCatalogues, type Catalogue, type Locale } from "../lib/i18n";

export { chosenLocale, locales, pickLocale, COUNTED, translator, isMessageKey, type Catalogue, type Locale, type MessageKey, type Translate } from "../lib/i18n";

/**
 * The message catalogue: every user-facing text, in English (default) and French. Each feature
 * keeps its own texts next to its code, in `src/<feature>/texts.ts` (an `en` object and an
 * `fr` typed against it); this module joins them and registers the result with lib/i18n.ts,
 * through which everything translates. Only the app's composition (src/app.tsx), the build and
 * tests import it. A key defined by two features fails
 * type-checking here, and a test checks that no entry is empty.
 */
import * as accountDeletion from "./account/delete-texts";
import * as accountExport from "./account/export-texts";
import * as activities from "./activities/texts";
import * as auth from "./auth/texts";
import * as availability from "./availability/texts";
import * as bookings from "./bookings/texts";
import * as email from "./email/texts";
import * as live from "./live/texts";
import * as conversations from "./conversations/texts";
import * as notifications from "./notifications/texts";
import * as payments from "./payments/texts";
import * as profiles from "./profiles/texts";
import * as reports from "./reports/texts";
import * as reviews from "./reviews/texts";
import * as saved from "./saved/texts";
import * as shell from "./shell/texts";
import * as uploads from "./uploads/texts";

/** Every feature's texts, by feature. */
export const messagesByFeature = { shell, auth, profiles, activities, availability, uploads, reviews, payments, bookings, conversations, reports, notifications, saved, live, email, accountExport, accountDeletion };

type Features = typeof messagesByFeature;
type KeysOf<M> = M extends { en: infer E } ? keyof E : never;
/** Keys that more than one feature defines: there must be none. */
type SharedKeys = { [F in keyof Features]: KeysOf<Features[F]> & KeysOf<Features[Exclude<keyof Features, F>]> }[keyof Features];

/** Every key the features define. */
type AllKeys = KeysOf<Features[keyof Features]>;

declare module "../lib/i18n" {
  // The catalogue's keys are the keys `MessageKey` allows everywhere.
  interface TextKeys extends Record<AllKeys, true> {}
}

/**
 * One language's catalogue: every feature's entries in that language. `unique` is `true` only
 * when no key is defined by two features; otherwise its type names those keys and the calls
 * below fail to type-check.
 */
function join(locale: "en" | "fr", unique: [SharedKeys] extends [never] ? true : { keysDefinedByTwoFeatures: SharedKeys }): Catalogue {
  return Object.assign({}, ...Object.values(messagesByFeature).map((feature) => feature[locale])) as Catalogue;
}

const en = join("en", true);
const fr = join("fr", true);

export const catalogues: Record<Locale, Catalogue> = { en, fr };

registerCatalogues(catalogues);
