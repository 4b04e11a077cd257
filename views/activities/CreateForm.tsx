import { currencySymbol, priceStep } from "../../lib/money";
import { categories, categoryLabelKey } from "../../src/activities/categories";
import { ACTIVITY_DESCRIPTION_MAX as DESCRIPTION_MAX, ACTIVITY_TITLE_MAX as TITLE_MAX, MEETING_POINT_MAX } from "../../shared/limits";
import type { Config } from "../../src/config";
import type { View } from "../../src/shell/view";
import { CharacterCounter, FieldError, FormAlert, ScreenHeader } from "../components/Fields";
import { Island } from "../components/Island";
import { AppLayout } from "../layouts/AppLayout";
import { PhotoGridFallback, photoGridTexts } from "../profiles/PhotoGridField";
import { AvailabilityFieldset, emptyAvailability, type AvailabilityValues } from "./Availability";
import { emptyGroupForm, FormatChoice, GroupFieldset, PolicyChoice, type GroupFormValues } from "./GroupFields";

export interface CreateFormState {
  values: { title: string; description: string; category: string; hourlyRate: string; hasMeetingPoint: boolean; meetingPoint: string; photos: string[]; availability: AvailabilityValues; group: GroupFormValues; cancellationPolicy: string };
  errors?: Record<string, string>;
  /** The weekday the weekly hours' refusal is about, when it is about one. */
  hoursDay?: number;
  alert?: { title: string; body: string };
}

export const emptyCreateForm: CreateFormState = {
  values: { title: "", description: "", category: "", hourlyRate: "", hasMeetingPoint: false, meetingPoint: "", photos: [], availability: emptyAvailability, group: emptyGroupForm, cancellationPolicy: "flexible" },
};

/** /create-activity: the single-page form (spec §2); back, cancel and success go to /host-dashboard. */
export function CreateActivityForm({ view, state, maps, near, currency }: { view: View; state: CreateFormState; maps: Config["maps"]; near: string; currency: string }) {
  const { t } = view;
  // The activity is created in the host's city, in its currency: prices are typed in it.
  const symbol = currencySymbol(currency, view.locale);
  const step = priceStep(currency);
  const v = state.values;
  const e = state.errors ?? {};
  const counter = (id: string, count: number, max: number) => <CharacterCounter view={view} id={id} count={count} max={max} />;
  // A field names only descriptions that are on the page: its error exists only when it has one.
  const describedBy = (field: string, ...always: string[]) => [...always, ...(e[field] ? [`field-${field}-error`] : [])].join(" ") || undefined;
  return (
    <AppLayout view={view} title={t("create.title")}>
      <>
        <ScreenHeader view={view} title={t("create.title")} back="/host-dashboard" />
        <form method="post" action="/create-activity" class="flex flex-col gap-5" novalidate>
          <input type="hidden" name="_csrf" value={view.csrf} />
          {state.alert ? <FormAlert title={state.alert.title} body={state.alert.body} /> : ""}
          <div>
            <p class="field-label mb-2" safe>
              {t("profile.photos")}
            </p>
            <Island name="PhotoGrid" props={{ name: "photos", photos: v.photos, max: 6, endpoint: "/api/activity-images", texts: { ...photoGridTexts(view), hint: t("create.photosHint") } }}>
              <PhotoGridFallback view={view} name="photos" photos={v.photos} hint={t("create.photosHint")} />
            </Island>
            <FieldError id="photos-error" message={e.photos} />
          </div>
          <div class="field">
            <label class="field-label" for="field-title" safe>
              {t("create.titleLabel")}
            </label>
            <input id="field-title" name="title" class="input" value={v.title} maxlength={String(TITLE_MAX)} required data-counter="title-count" aria-invalid={e.title ? "true" : undefined} aria-describedby={describedBy("title", "title-count")} />
            {counter("title-count", v.title.length, TITLE_MAX)}
            <FieldError id="field-title-error" message={e.title} />
          </div>
          <div class="field">
            <label class="field-label" for="field-description" safe>
              {t("create.descriptionLabel")}
            </label>
            <textarea id="field-description" name="description" class="input" rows="4" maxlength={String(DESCRIPTION_MAX)} required data-counter="description-count" aria-invalid={e.description ? "true" : undefined} aria-describedby={describedBy("description", "description-count")} safe>
              {v.description}
            </textarea>
            {counter("description-count", v.description.length, DESCRIPTION_MAX)}
            <FieldError id="field-description-error" message={e.description} />
          </div>
          <div class="field">
            <label class="field-label" for="field-category" safe>
              {t("create.categoryLabel")}
            </label>
            <select id="field-category" name="category" class="input" required aria-invalid={e.category ? "true" : undefined} aria-describedby={describedBy("category")}>
              <option value="" selected={!v.category} safe>
                {t("create.chooseCategory")}
              </option>
              {categories.map((c) => (
                <option value={c} selected={v.category === c} safe>
                  {t(categoryLabelKey(c))}
                </option>
              ))}
            </select>
            <FieldError id="field-category-error" message={e.category} />
          </div>
          <FormatChoice view={view} values={v.group} errors={e} />
          <div class="field" data-format-fields="private">
            <label class="field-label" for="field-hourlyRate" safe>
              {t("create.rateLabel", { currency: currency.toUpperCase() })}
            </label>
            <div class="relative">
              <span class="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted" safe>
                {symbol}
              </span>
              <input id="field-hourlyRate" name="hourlyRate" type="number" inputmode="decimal" step={step} min={step} class={symbol.length > 1 ? "input pl-10" : "input pl-7"} value={v.hourlyRate} aria-invalid={e.hourlyRate ? "true" : undefined} aria-describedby={describedBy("hourlyRate")} />
            </div>
            <FieldError id="field-hourlyRate-error" message={e.hourlyRate} />
          </div>
          <GroupFieldset view={view} values={v.group} errors={e} currency={currency} />
          <fieldset class="field">
            <legend class="field-label mb-2" safe>
              {t("create.meetingPoint")}
            </legend>
            <label class="flex items-center gap-2">
              <input type="radio" name="hasMeetingPoint" value="true" checked={v.hasMeetingPoint} class="accent-[#e8553d]" />
              <span safe>{t("create.meetingNow")}</span>
            </label>
            <label class="flex items-center gap-2">
              <input type="radio" name="hasMeetingPoint" value="false" checked={!v.hasMeetingPoint} class="accent-[#e8553d]" />
              <span safe>{t("create.meetingLater")}</span>
            </label>
            <div class="meeting-address mt-2">
              <Island
                name="AddressInput"
                props={{ name: "meetingPoint", value: v.meetingPoint, label: t("create.meetingAddress"), placeholder: t("create.meetingPlaceholder"), geocoderUrl: maps.geocoderUrl, near, maxLength: MEETING_POINT_MAX, invalid: Boolean(e.meetingPoint), describedBy: describedBy("meetingPoint") }}
              >
                <input name="meetingPoint" class="input" value={v.meetingPoint} maxlength={String(MEETING_POINT_MAX)} aria-label={t("create.meetingAddress")} placeholder={t("create.meetingPlaceholder")} />
              </Island>
            </div>
            <FieldError id="field-meetingPoint-error" message={e.meetingPoint} />
          </fieldset>
          <AvailabilityFieldset view={view} values={v.availability} errors={e} hoursDay={state.hoursDay} />
          <PolicyChoice view={view} value={v.cancellationPolicy} error={e.cancellationPolicy} />
          <div class="flex gap-3">
            <a href="/host-dashboard" class="btn btn-secondary flex-1" safe>
              {t("common.cancel")}
            </a>
            <button type="submit" class="btn btn-primary flex-1" data-busy-text={t("common.saving")} safe>
              {t("create.submit")}
            </button>
          </div>
        </form>
      </>
    </AppLayout>
  );
}
