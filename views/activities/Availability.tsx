import { DEFAULT_HORIZON_DAYS, DEFAULT_NOTICE_MINUTES, HORIZON_CHOICES, NOTICE_CHOICES, rangesText, type WeeklyHours } from "../../shared/availability";
import type { Activity } from "../../db/schema";
import { dayNameKey, dayShortKey, dayText } from "../../src/activities/input";
import type { Locale, Translate } from "../../lib/i18n";
import type { View } from "../../src/shell/view";
import { FieldError } from "../components/Fields";

/**
 * When an activity can be booked (decision 0037), as the host sets it: the choices' labels the
 * wizard and the form share, the no-JavaScript fieldset of the create form, and the summary the
 * activity page shows.
 */

/** "None", "2 hours before", "3 days before". */
export function noticeLabel(t: Translate, minutes: number): string {
  if (minutes === 0) return t("activity.noticeNone");
  return minutes < 1440 ? t("activity.noticeHours", { n: minutes / 60 }) : t("activity.noticeDays", { n: minutes / 1440 });
}

/** "90 days ahead". */
export const horizonLabel = (t: Translate, days: number) => t("activity.horizonDays", { n: days });

export const noticeChoices = (t: Translate) => NOTICE_CHOICES.map((value) => ({ value, label: noticeLabel(t, value) }));
export const horizonChoices = (t: Translate) => HORIZON_CHOICES.map((value) => ({ value, label: horizonLabel(t, value) }));

/**
 * "Mon 9:00 AM–12:00 PM · Sat, Sun 9:00 AM–12:00 PM" (the language's clock): days with the same ranges together, in week order,
 * closed days left out. Empty without weekly hours.
 */
export function weeklyHoursSummary({ t, locale }: { t: Translate; locale: Locale }, hours: WeeklyHours | null): string {
  if (!hours) return "";
  const groups = new Map<string, number[]>();
  hours.forEach((ranges, day) => {
    if (!ranges.length) return;
    const text = rangesText(ranges, locale);
    groups.set(text, [...(groups.get(text) ?? []), day]);
  });
  return [...groups].map(([text, days]) => `${days.map((d) => t(dayShortKey(d))).join(", ")} ${text}`).join(" · ");
}

/** The create form's availability values, as typed (sent back as they were on a refusal). */
export interface AvailabilityValues {
  hoursMode: "any" | "weekly";
  /** Each day's ranges as text, Monday first. */
  hours: string[];
  noticeMinutes: string;
  horizonDays: string;
  instantBooking: boolean;
}

export const emptyAvailability: AvailabilityValues = {
  hoursMode: "any",
  hours: ["", "", "", "", "", "", ""],
  noticeMinutes: String(DEFAULT_NOTICE_MINUTES),
  horizonDays: String(DEFAULT_HORIZON_DAYS),
  instantBooking: false,
};

/** The form's values of a saved activity. */
export function availabilityValues(activity: Pick<Activity, "weeklyHours" | "noticeMinutes" | "horizonDays" | "instantBooking">): AvailabilityValues {
  return {
    hoursMode: activity.weeklyHours ? "weekly" : "any",
    hours: [0, 1, 2, 3, 4, 5, 6].map((d) => dayText(activity.weeklyHours?.[d])),
    noticeMinutes: String(activity.noticeMinutes),
    horizonDays: String(activity.horizonDays),
    instantBooking: activity.instantBooking,
  };
}

/** The form's values as posted (`hoursMode`, `hours0` … `hours6`, the selects and the checkbox). */
export function postedAvailability(input: Record<string, unknown>): AvailabilityValues {
  const str = (k: string) => (typeof input[k] === "string" ? (input[k] as string) : "");
  return {
    hoursMode: str("hoursMode") === "weekly" ? "weekly" : "any",
    hours: [0, 1, 2, 3, 4, 5, 6].map((d) => str(`hours${d}`)),
    noticeMinutes: str("noticeMinutes") || String(DEFAULT_NOTICE_MINUTES),
    horizonDays: str("horizonDays") || String(DEFAULT_HORIZON_DAYS),
    instantBooking: ["on", "true", "1"].includes(str("instantBooking")),
  };
}

/** A labelled select of fixed choices, its refusal tied to it (notice, horizon). */
function ChoiceSelect({ name, label, choices, value, error }: { name: string; label: string; choices: { value: number; label: string }[]; value: string; error?: string }) {
  const id = `field-${name}`;
  return (
    <div class="field">
      <label class="field-label" for={id} safe>
        {label}
      </label>
      <select id={id} name={name} class="input" aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${id}-error` : undefined}>
        {choices.map((c) => (
          <option value={String(c.value)} selected={value === String(c.value)} safe>
            {c.label}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/**
 * The form's availability, for keyboards, screen readers and browsers without JavaScript: a
 * choice between any day and weekly hours, one labelled text field per weekday ("09:00-12:00,
 * 14:00-18:00", empty when closed, which its placeholder says: "Closed"; the hint gives the format
 * once), then notice, horizon and instant booking. A refusal about
 * one day is shown under the hours and tied to that day's field.
 */
export function AvailabilityFieldset({ view, values, errors, hoursDay }: { view: Pick<View, "t">; values: AvailabilityValues; errors: Record<string, string>; hoursDay?: number }) {
  const { t } = view;
  const hoursError = errors.weeklyHours;
  const describedBy = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(" ") || undefined;
  return (
    <>
      <fieldset class="field" aria-describedby={hoursError && hoursDay === undefined ? "field-weeklyHours-error" : undefined}>
        <legend class="field-label mb-2" safe>
          {t("activity.hoursLegend")}
        </legend>
        <label class="flex items-center gap-2">
          <input type="radio" name="hoursMode" value="any" checked={values.hoursMode === "any"} class="accent-[#e8553d]" />
          <span safe>{t("activity.hoursAny")}</span>
        </label>
        <label class="flex items-center gap-2">
          <input type="radio" name="hoursMode" value="weekly" checked={values.hoursMode === "weekly"} class="accent-[#e8553d]" />
          <span safe>{t("activity.hoursWeekly")}</span>
        </label>
        <p id="hours-hint" class="mt-1 text-sm text-muted" safe>
          {t("create.hoursDayHint")}
        </p>
        <div class="mt-1 flex flex-col gap-2">
          {values.hours.map((text, day) => (
            <div class="flex items-center gap-3">
              <label class="w-24 shrink-0 text-sm font-medium" for={`field-hours${day}`} safe>
                {t(dayNameKey(day))}
              </label>
              <input
                id={`field-hours${day}`}
                name={`hours${day}`}
                class="input min-w-0 flex-1 placeholder:italic"
                value={text}
                inputmode="text"
                autocomplete="off"
                placeholder={t("wizard.closed")}
                aria-invalid={hoursError && hoursDay === day ? "true" : undefined}
                aria-describedby={describedBy("hours-hint", hoursError && hoursDay === day && "field-weeklyHours-error")}
              />
            </div>
          ))}
        </div>
        <FieldError id="field-weeklyHours-error" message={hoursError} />
      </fieldset>
      <ChoiceSelect name="noticeMinutes" label={t("activity.noticeLabel")} choices={noticeChoices(t)} value={values.noticeMinutes} error={errors.noticeMinutes} />
      <ChoiceSelect name="horizonDays" label={t("activity.horizonLabel")} choices={horizonChoices(t)} value={values.horizonDays} error={errors.horizonDays} />
      <div class="field">
        <label class="flex items-start gap-2">
          <input type="checkbox" name="instantBooking" value="on" checked={values.instantBooking} class="mt-1 h-5 w-5 accent-[#e8553d]" aria-describedby="instant-help" />
          <span class="font-medium" safe>
            {t("activity.instantBookingLabel")}
          </span>
        </label>
        <p id="instant-help" class="text-sm text-muted" safe>
          {t("activity.instantBookingHelp")}
        </p>
        <FieldError id="field-instantBooking-error" message={errors.instantBooking} />
      </div>
    </>
  );
}
