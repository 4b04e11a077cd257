import type { User } from "../../db/schema";
import { ONBOARDING_STEPS } from "../../src/profiles/onboarding";
import { NAME_MAX, PROFILE_PHOTOS_MAX, USERNAME_MAX, USERNAME_MIN } from "../../shared/limits";
import type { View } from "../../src/shell/view";
import { CityOptions, CountryOptions, FieldError, FormAlert, TextField } from "../components/Fields";
import { Icon } from "../components/icons";
import { Island } from "../components/Island";
import { Document } from "../layouts/Document";
import { photoGridTexts, PhotoGridFallback } from "./PhotoGridField";


export interface OnboardingState {
  step: number;
  values: { firstName?: string | null; lastName?: string | null; username?: string | null; dateOfBirth?: string | null; photos: string[]; country?: string | null; city?: string | null };
  errors?: Record<string, string>;
  alert?: { title?: string; body?: string };
  /** Step 3: the date sent makes the person under 18 (the age rule is said under the field). */
  underage?: boolean;
}

export function onboardingValues(user: User): OnboardingState["values"] {
  return {
    firstName: user.firstName,
    lastName: user.lastName,
    username: user.username,
    dateOfBirth: user.dateOfBirth,
    photos: user.photos,
    country: user.country,
    city: user.city,
  };
}

/** The latest birthday that makes someone 18 today, for the date picker's max. */
function latestAdultBirthday(today: Date) {
  const d = new Date(Date.UTC(today.getUTCFullYear() - 18, today.getUTCMonth(), today.getUTCDate()));
  return d.toISOString().slice(0, 10);
}

/** Profile completion in five steps (spec §2, §5): name, username, birthday, photo, location. */
export function Onboarding({ view, state, today }: { view: View; state: OnboardingState; today: Date }) {
  const { t } = view;
  const { step, values } = state;
  const errors = state.errors ?? {};
  const titles = ["onboarding.step1.title", "onboarding.step2.title", "onboarding.step3.title", "onboarding.step4.title", "onboarding.step5.title"] as const;
  const intros = ["onboarding.step1.body", "onboarding.step2.body", "onboarding.step3.body", "onboarding.step4.body", "onboarding.step5.body"] as const;
  const last = step === ONBOARDING_STEPS;
  return (
    <Document view={view} title={t("onboarding.title")}>
      <main id="main" class="mx-auto flex min-h-screen max-w-md flex-col px-5 py-6">
        <div class="flex min-h-11 items-center gap-2">
          {step > 1 ? (
            <a href={`/onboarding?step=${step - 1}`} class="btn-icon -ml-3" aria-label={t("common.back")}>
              <Icon name="arrowLeft" class="w-5 h-5" />
            </a>
          ) : (
            ""
          )}
          <p class="text-sm font-medium text-muted" safe>
            {t("onboarding.progress", { step, total: ONBOARDING_STEPS })}
          </p>
        </div>
        <div class="mt-2 h-1.5 overflow-hidden rounded-full bg-sunken" role="progressbar" aria-valuemin="1" aria-valuemax={String(ONBOARDING_STEPS)} aria-valuenow={String(step)} aria-label={t("onboarding.title")}>
          <div class="h-full rounded-full bg-brand-500" style={`width:${(step / ONBOARDING_STEPS) * 100}%`} />
        </div>

        <h1 class="mt-8 text-2xl font-bold" safe>
          {t(titles[step - 1]!)}
        </h1>
        <p class="mt-1 text-muted" safe>
          {t(intros[step - 1]!)}
        </p>

        <form method="post" action="/onboarding" class="mt-6 flex flex-1 flex-col gap-4" data-validate novalidate>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <input type="hidden" name="step" value={String(step)} />
          <FormAlert title={state.alert?.title} body={state.alert?.body} />

          {step === 1 ? (
            <>
              <TextField name="firstName" label={t("profile.firstName")} value={values.firstName} error={errors.firstName} required maxlength={NAME_MAX} autocomplete="given-name" />
              <TextField name="lastName" label={t("profile.lastName")} value={values.lastName} error={errors.lastName} required maxlength={NAME_MAX} autocomplete="family-name" />
            </>
          ) : step === 2 ? (
            <UsernameField view={view} value={values.username} error={errors.username} />
          ) : step === 3 ? (
            <BirthdayField view={view} value={values.dateOfBirth} error={errors.dateOfBirth} underage={state.underage ?? false} max={latestAdultBirthday(today)} />
          ) : step === 4 ? (
            <div>
              <Island name="PhotoGrid" props={{ name: "photos", photos: values.photos, max: PROFILE_PHOTOS_MAX, endpoint: "/api/profile-images", texts: photoGridTexts(view) }}>
                <PhotoGridFallback view={view} name="photos" photos={values.photos} />
              </Island>
              <FieldError id="photos-error" message={errors.photos} />
            </div>
          ) : (
            <LocationFields view={view} country={values.country} city={values.city} error={errors.city} />
          )}

          <div class="mt-auto pt-6">
            <button
              type="submit"
              class="btn btn-primary btn-lg w-full"
              data-needs-valid
              data-busy-text={last ? t("onboarding.saving") : undefined}
            >
              {(last ? t("onboarding.complete") : t("common.next")) as "safe"}
            </button>
          </div>
        </form>
      </main>
    </Document>
  );
}

/**
 * The birthday, with the age rule (spec §5: 'Age requirement' / 'You must be at least 18 years old
 * to use this platform') said under the field rather than only by a Next button that stays
 * disabled: the page script shows it as soon as the date picked is after `max`
 * (`data-after-max`, islands/shell/forms.ts), and the server's answer to such a date shows it the
 * same way, for a browser without script. The input is described by the message's container,
 * which stays in place (a live region) while the message in it is hidden: an empty description
 * until the rule is broken, then read out.
 */
function BirthdayField({ view, value, error, underage, max }: { view: View; value?: string | null; error?: string; underage: boolean; max: string }) {
  const { t } = view;
  const messageId = "field-dateOfBirth-age";
  return (
    <TextField
      name="dateOfBirth"
      type="date"
      label={t("profile.birthday")}
      value={value}
      error={underage ? undefined : error}
      invalid={underage}
      required
      autocomplete="bday"
      hint={t("onboarding.step3.hint")}
      describedBy={messageId}
      attrs={{ max, min: "1900-01-01", "data-after-max": messageId }}
    >
      <div id={messageId} aria-live="polite">
        <p class="field-error" hidden={!underage} data-age-message>
          <strong class="block" safe>
            {t("profile.ageRequirementTitle")}
          </strong>
          <span safe>{t("profile.ageRequirement")}</span>
        </p>
      </div>
    </TextField>
  );
}

/**
 * Username with its availability check, 500 ms after typing (spec §4). With `current` it is the
 * settings screen's field, whose check says a taken name as that screen does (spec §5).
 */
export function UsernameField({ view, value, error, current }: { view: View; value?: string | null; error?: string; current?: string | null }) {
  const { t } = view;
  const screen: UsernameScreen = current === undefined ? "onboarding" : "settings";
  return (
    <div class="field">
      <label class="field-label" for="field-username" safe>
        {t("profile.username")}
      </label>
      <div class="relative">
        <span class="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted">@</span>
        <input
          id="field-username"
          type="text"
          class="input pl-8"
          name="username"
          value={value ?? ""}
          required
          minlength={String(USERNAME_MIN)}
          maxlength={String(USERNAME_MAX)}
          pattern="[a-z0-9._]+"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          data-lowercase
          aria-invalid={error ? "true" : undefined}
          aria-describedby="username-status username-error"
          hx-get={`/fragments/username-status?screen=${screen}`}
          hx-trigger="input changed delay:500ms"
          hx-target="#username-status"
          hx-swap="outerHTML"
          hx-sync="this:replace"
          data-check-status="username-status"
          data-initial={current ?? undefined}
        />
      </div>
      <UsernameStatus view={view} state={value && value === current ? "unchanged" : "unknown"} screen={screen} />
      <FieldError id="username-error" message={error} />
    </div>
  );
}

export type UsernameCheck = "unknown" | "checking" | "available" | "taken" | "tooShort" | "invalid" | "unchanged";

/** Which screen the check is on: the spec words a taken name differently on each (§5). */
export type UsernameScreen = "onboarding" | "settings";

export function UsernameStatus({ view, state, message, screen = "onboarding" }: { view: View; state: UsernameCheck; message?: string; screen?: UsernameScreen }) {
  const { t } = view;
  const blocking = state === "taken" || state === "tooShort" || state === "invalid" || state === "checking";
  // Onboarding: 'Username not available' / 'Please choose a different username'; the username
  // screen: 'This username is already taken', as its Save answers too.
  const taken = screen === "settings" ? t("profile.usernameTaken") : `${t("profile.usernameNotAvailable")}: ${t("profile.usernameChooseAnother")}`;
  const text =
    state === "available"
      ? `✓ ${t("profile.usernameAvailable")}`
      : state === "taken"
        ? `✗ ${taken}`
        : state === "tooShort" || state === "invalid"
          ? `✗ ${message ?? ""}`
          : "";
  const tone = state === "available" ? "text-green-700 dark:text-green-300" : blocking ? "text-red-600 dark:text-red-300" : "text-muted";
  return (
    <span
      id="username-status"
      class={`min-h-5 text-sm ${tone}`}
      aria-live="polite"
      data-blocking={blocking ? "true" : "false"}
      data-checking-text={t("profile.usernameChecking")}
      safe
    >
      {text}
    </span>
  );
}

/** Country and city from the fixed lists; choosing a country reloads the cities (htmx). */
export function LocationFields({ view, country, city, error, autosave }: { view: View; country?: string | null; city?: string | null; error?: string; autosave?: boolean }) {
  const { t } = view;
  return (
    <div id="location-fields" class="flex flex-col gap-4">
      <label class="field" for="field-country">
        <span class="field-label" safe>
          {t("profile.country")}
        </span>
        <select
          id="field-country"
          name="country"
          class="input"
          required
          {...(autosave
            ? { "hx-post": "/settings/location", "hx-include": "#field-country" }
            : { "hx-get": "/fragments/location", "hx-include": "this" })}
          hx-trigger="change"
          hx-target="#location-fields"
          hx-swap="outerHTML"
        >
          <CountryOptions selected={country} placeholder={t("profile.selectCountry")} />
        </select>
      </label>
      <label class="field" for="field-city">
        <span class="field-label" safe>
          {t("profile.city")}
        </span>
        <select
          id="field-city"
          name="city"
          class="input"
          required
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? "city-error" : undefined}
          {...(autosave ? { "hx-post": "/settings/location", "hx-trigger": "change", "hx-include": "#location-fields", "hx-target": "#location-fields", "hx-swap": "outerHTML" } : {})}
        >
          <CityOptions country={country} selected={city} placeholder={t("profile.selectCity")} />
        </select>
      </label>
      <FieldError id="city-error" message={error} />
    </div>
  );
}
