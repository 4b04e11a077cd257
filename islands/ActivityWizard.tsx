/** @jsxImportSource react */
import { useState } from "react";
import { ACTIVITY_DESCRIPTION_MAX, ACTIVITY_PHOTOS_MAX, ACTIVITY_TITLE_MAX, DURATION_MAX, DURATION_MIN, DURATION_STEP, MAX_RANGES_PER_DAY, MEETING_POINT_MAX } from "../shared/limits";
import { checkWeeklyHours, DAY_MINUTES, HOURS_STEP_MINUTES, minuteText, type DayRanges, type WeeklyHours, type WeeklyHoursProblem } from "../shared/availability";
import { AddressInput } from "./AddressInput";
import { callJson, toast } from "./api";
import { mountWith } from "./mount";
import { PhotoGrid, type PhotoGridProps } from "./PhotoGrid";

export interface WizardActivity {
  id?: string;
  category: string;
  title: string;
  description: string;
  hourlyRate: string;
  photos: string[];
  minDurationMinutes: number;
  maxDurationMinutes: number | null;
  hasMeetingPoint: boolean;
  meetingPoint: string;
  /** Null: any day, starts from 08:00 to 22:00 (decision 0037). */
  weeklyHours: WeeklyHours | null;
  noticeMinutes: number;
  horizonDays: number;
  instantBooking: boolean;
}

interface Tips {
  heading: string;
  tips: string[];
  examples: string[];
}

export interface ActivityWizardProps {
  mode: "create" | "edit";
  activity: WizardActivity;
  city: string;
  country: string;
  geocoderUrl: string;
  categories: { value: string; label: string; photo: string }[];
  photoTexts: PhotoGridProps["texts"];
  /** The weekdays' names, Monday first. */
  days: string[];
  noticeChoices: { value: number; label: string }[];
  horizonChoices: { value: number; label: string }[];
  tips: Record<"title" | "description" | "photos", Tips>;
  t: Record<string, string>;
}

const STEPS = 8;
/** The step that sets when the activity can be booked. */
const AVAILABILITY_STEP = 7;
const fill = (text: string, values: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ""));

const numberFormats = new Map<string, Intl.NumberFormat>();
/**
 * A number format, made the first time a step shows a number and kept: making one costs far more
 * than using it (the first one a page makes, some 15 ms on a slow phone), and the first step shows none.
 */
function numberFormat(locale: string | undefined, options: Intl.NumberFormatOptions) {
  const key = `${locale} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(locale, options)));
  return format;
}

/** Cents from what was typed, or null when it is not a valid amount above zero. */
function rateCents(rate: string): number | null {
  const text = rate.trim().replace(",", ".");
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return null;
  const [whole = "0", fraction = ""] = text.split(".");
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return cents > 0 ? cents : null;
}

const PROBLEM_TEXT: Record<WeeklyHoursProblem, string> = {
  invalidTime: "hoursInvalidTime",
  endBeforeStart: "hoursEndBeforeStart",
  overlap: "hoursOverlap",
  tooMany: "hoursTooMany",
};
/** The half hours a range may start at (00:00 … 23:30) and end at (00:30 … 24:00). */
const halfHours = Array.from({ length: DAY_MINUTES / HOURS_STEP_MINUTES + 1 }, (_, i) => i * HOURS_STEP_MINUTES);
const startMinutes = halfHours.slice(0, -1);
const endMinutes = halfHours.slice(1);
const closedWeek = (): DayRanges[] => [[], [], [], [], [], [], []];

/** A new range after a day's last one: 09:00–17:00 on a closed day. */
function nextRange(ranges: DayRanges): [number, number] {
  if (!ranges.length) return [9 * 60, 17 * 60];
  const from = Math.min(Math.max(...ranges.map((r) => r[1])) + 60, DAY_MINUTES - HOURS_STEP_MINUTES);
  return [from, Math.min(from + 120, DAY_MINUTES)];
}

/**
 * The eight-step activity wizard (spec §2, §5): category, title, description, pricing, photos,
 * duration, availability (decision 0037), location. Next stays disabled until the step's rule holds; the last step creates or
 * updates through the JSON API, and in edit mode can delete after a confirmation.
 */
/** A labelled select of fixed numeric choices (minimum notice, how far ahead). */
function ChoiceField({ id, label, choices, value, onChange }: { id: string; label?: string; choices: { value: number; label: string }[]; value: number; onChange: (value: number) => void }) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select id={id} className="input" value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function ActivityWizard({ mode, activity, city, country, geocoderUrl, categories, photoTexts, days, noticeChoices, horizonChoices, tips, t }: ActivityWizardProps) {
  const [step, setStep] = useState(1);
  const [a, setA] = useState<WizardActivity>(activity);
  const [hasMax, setHasMax] = useState(activity.maxDurationMinutes !== null);
  const [sheet, setSheet] = useState<Tips | null>(null);
  const [busy, setBusy] = useState(false);
  const update = (patch: Partial<WizardActivity>) => setA((current) => ({ ...current, ...patch }));
  // Weekly hours as being edited; kept while "any day" is chosen, so switching back loses nothing.
  const [weekly, setWeekly] = useState<DayRanges[]>(activity.weeklyHours ?? closedWeek());
  const [hoursMode, setHoursMode] = useState<"any" | "weekly">(activity.weeklyHours ? "weekly" : "any");
  const setDay = (day: number, ranges: DayRanges) => setWeekly((w) => w.map((r, d) => (d === day ? ranges : r)));
  const checked = checkWeeklyHours(weekly);
  const hoursProblem =
    hoursMode === "any" ? null : !checked.ok ? fill(t[PROBLEM_TEXT[checked.problem]]!, { day: days[checked.day]! }) : checked.hours.every((d) => !d.length) ? t.hoursEmpty! : null;

  const money = (cents: number) => numberFormat(t.locale, { style: "currency", currency: "USD" }).format(cents / 100);
  // "1.5 h" in English, "1,5 h" in French, as the server writes it (views/activities/Detail.tsx).
  const duration = (m: number) => (m < 60 ? fill(t.minutes!, { n: m }) : fill(t.hours!, { n: numberFormat(t.locale, { maximumFractionDigits: 1 }).format(m / 60) }));

  const valid = [
    Boolean(a.category),
    a.title.trim().length > 0 && a.title.length <= ACTIVITY_TITLE_MAX,
    a.description.trim().length > 0 && a.description.length <= ACTIVITY_DESCRIPTION_MAX,
    rateCents(a.hourlyRate) !== null,
    a.photos.length > 0,
    a.minDurationMinutes > 0,
    hoursProblem === null,
    true,
  ][step - 1];

  const maxDuration = hasMax ? Math.max(a.maxDurationMinutes ?? a.minDurationMinutes + DURATION_STEP, a.minDurationMinutes + DURATION_STEP) : null;

  const finish = (message: string) => {
    try {
      sessionStorage.setItem("toast", JSON.stringify({ title: message, variant: "success" }));
    } catch {}
    location.assign("/host");
  };

  const submit = async () => {
    setBusy(true);
    const body = {
      category: a.category,
      title: a.title,
      description: a.description,
      hourlyRate: a.hourlyRate,
      photos: a.photos,
      duration: String(a.minDurationMinutes / 60),
      maxDuration: maxDuration === null ? null : String(maxDuration / 60),
      hasMeetingPoint: a.hasMeetingPoint,
      meetingPoint: a.hasMeetingPoint ? a.meetingPoint : "",
      weeklyHours: hoursMode === "weekly" && checked.ok ? checked.hours : null,
      noticeMinutes: a.noticeMinutes,
      horizonDays: a.horizonDays,
      instantBooking: a.instantBooking,
      ...(mode === "create" ? { country, city } : {}),
    };
    try {
      if (mode === "create") await callJson("/api/activities", { method: "POST", body });
      else await callJson(`/api/activities/${a.id}`, { method: "PATCH", body });
      finish(mode === "create" ? t.created! : t.updated!);
    } catch (err) {
      toast(mode === "create" ? t.createError! : t.updateError!, err instanceof Error && err.message ? err.message : t.tryAgain);
      setBusy(false);
    }
  };

  const remove = async () => {
    if (!window.confirm(t.deleteConfirm)) return;
    setBusy(true);
    try {
      await callJson(`/api/activities/${a.id}`, { method: "DELETE" });
      finish(t.deleted!);
    } catch (err) {
      toast(t.deleteError!, err instanceof Error ? err.message : undefined);
      setBusy(false);
    }
  };

  const stepTitles = [t.step1, t.step2, t.step3, t.step4, t.step5, t.step6, t.step7, t.step8];
  const tipsFor = step === 2 ? tips.title : step === 3 ? tips.description : step === 5 ? tips.photos : null;
  const stepper = (value: number, min: number, onSet: (v: number) => void, label: string) => (
    <div className="flex items-center justify-between rounded-xl border border-line p-3">
      <span className="font-medium">{label}</span>
      <div className="flex items-center gap-3">
        <button type="button" className="btn btn-secondary h-10 w-10 p-0" aria-label={`${t.less} — ${label}`} disabled={value <= min} onClick={() => onSet(value - DURATION_STEP)}>
          −
        </button>
        <span className="w-16 text-center font-semibold" aria-live="polite">
          {duration(value)}
        </span>
        <button type="button" className="btn btn-secondary h-10 w-10 p-0" aria-label={`${t.more} — ${label}`} disabled={value >= DURATION_MAX} onClick={() => onSet(value + DURATION_STEP)}>
          +
        </button>
      </div>
    </div>
  );

  return (
    <div className="flex min-h-[70vh] flex-col" data-hydrated="true" data-step={step}>
      <div className="flex items-center justify-between">
        <p className="text-sm font-medium text-muted">{fill(t.progress!, { step, total: STEPS })}</p>
        <a href="/host" className="btn btn-ghost px-2.5" aria-label={t.close}>
          ✕
        </a>
      </div>
      <div className="mt-2 h-1.5 overflow-hidden rounded-full bg-sunken" role="progressbar" aria-valuemin={1} aria-valuemax={STEPS} aria-valuenow={step} aria-label={t.title}>
        <div className="h-full rounded-full bg-brand-500" style={{ width: `${(step / STEPS) * 100}%` }} />
      </div>
      <div className="mt-6 flex items-start justify-between gap-3">
        <h2 className="text-2xl font-bold">{stepTitles[step - 1]}</h2>
        {tipsFor ? (
          <button type="button" className="btn btn-secondary shrink-0 px-3 py-1.5 text-sm" onClick={() => setSheet(tipsFor)}>
            {t.getTips}
          </button>
        ) : null}
      </div>

      <div className="mt-4 flex-1">
        {step === 1 ? (
          <div role="radiogroup" aria-label={t.step1} className="grid grid-cols-3 gap-2">
            {categories.map((c) => (
              <button
                key={c.value}
                type="button"
                role="radio"
                aria-checked={a.category === c.value}
                onClick={() => update({ category: c.value })}
                className={`flex flex-col items-center gap-1 rounded-xl border p-2 text-xs font-medium ${a.category === c.value ? "border-brand-500 bg-brand-50 text-brand-700 dark:bg-brand-900/40 dark:text-brand-100" : "border-line bg-raised"}`}
              >
                <img src={c.photo} alt="" className="h-10 w-14 rounded-md object-cover" />
                {c.label}
              </button>
            ))}
          </div>
        ) : step === 2 ? (
          <div className="field">
            <label className="field-label" htmlFor="wizard-title">
              {t.titleLabel}
            </label>
            <input id="wizard-title" className="input" value={a.title} maxLength={ACTIVITY_TITLE_MAX} placeholder={t.titlePlaceholder} onChange={(e) => update({ title: e.target.value })} autoFocus />
            <span className="text-right text-xs text-muted">{fill(t.titleCount!, { count: a.title.length })}</span>
          </div>
        ) : step === 3 ? (
          <div className="field">
            <label className="field-label" htmlFor="wizard-description">
              {t.descriptionLabel}
            </label>
            <textarea id="wizard-description" className="input" rows={5} value={a.description} maxLength={ACTIVITY_DESCRIPTION_MAX} placeholder={t.descriptionPlaceholder} onChange={(e) => update({ description: e.target.value })} autoFocus />
            <span className="text-right text-xs text-muted">{fill(t.descriptionCount!, { count: a.description.length })}</span>
          </div>
        ) : step === 4 ? (
          <div className="flex flex-col gap-4">
            <div className="field">
              <label className="field-label" htmlFor="wizard-rate">
                {t.rateLabel}
              </label>
              <div className="relative">
                <span className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted">$</span>
                <input id="wizard-rate" className="input pl-7" inputMode="decimal" type="number" step="0.01" min="0.01" value={a.hourlyRate} onChange={(e) => update({ hourlyRate: e.target.value })} autoFocus />
              </div>
            </div>
            <details className="card p-4">
              <summary className="cursor-pointer font-medium">{t.breakdown}</summary>
              {rateCents(a.hourlyRate) !== null ? (
                <dl className="mt-3 flex flex-col gap-1 text-sm">
                  <div className="flex justify-between">
                    <dt>{t.rateLine}</dt>
                    <dd>{money(rateCents(a.hourlyRate)!)}</dd>
                  </div>
                  <div className="flex justify-between text-muted">
                    <dt>{t.feeLine}</dt>
                    <dd>−{money(Math.round(rateCents(a.hourlyRate)! * 0.2))}</dd>
                  </div>
                  <div className="flex justify-between font-semibold">
                    <dt>{t.earnLine}</dt>
                    <dd data-earnings>{money(rateCents(a.hourlyRate)! - Math.round(rateCents(a.hourlyRate)! * 0.2))}</dd>
                  </div>
                </dl>
              ) : (
                <p className="mt-2 text-sm text-muted">{t.enterRate}</p>
              )}
            </details>
          </div>
        ) : step === 5 ? (
          <PhotoGrid name="photos" photos={a.photos} max={ACTIVITY_PHOTOS_MAX} endpoint="/api/activity-images" texts={photoTexts} onChange={(photos) => update({ photos })} />
        ) : step === 6 ? (
          <div className="flex flex-col gap-3">
            {stepper(a.minDurationMinutes, DURATION_MIN, (v) => update({ minDurationMinutes: v, maxDurationMinutes: a.maxDurationMinutes !== null && a.maxDurationMinutes < v + DURATION_STEP ? Math.min(v + DURATION_STEP, DURATION_MAX) : a.maxDurationMinutes }), t.minDuration!)}
            <label className="flex items-center justify-between rounded-xl border border-line p-3">
              <span className="font-medium">{t.maxToggle}</span>
              <input
                type="checkbox"
                role="switch"
                className="h-5 w-5 accent-[#e8553d]"
                checked={hasMax}
                disabled={a.minDurationMinutes >= DURATION_MAX}
                onChange={(e) => {
                  setHasMax(e.target.checked);
                  if (e.target.checked) update({ maxDurationMinutes: Math.min(Math.max(a.maxDurationMinutes ?? 0, a.minDurationMinutes + DURATION_STEP), DURATION_MAX) });
                }}
              />
            </label>
            {hasMax && maxDuration !== null ? stepper(maxDuration, a.minDurationMinutes + DURATION_STEP, (v) => update({ maxDurationMinutes: v }), t.maxDuration!) : <p className="text-sm text-muted">{t.noMax}</p>}
          </div>
        ) : step === AVAILABILITY_STEP ? (
          <div className="flex flex-col gap-4">
            <fieldset className="flex flex-col gap-2">
              <legend className="sr-only">{t.hoursLegend}</legend>
              <label className="flex items-center gap-2 rounded-xl border border-line p-3">
                <input type="radio" name="hoursMode" className="accent-[#e8553d]" checked={hoursMode === "any"} onChange={() => setHoursMode("any")} />
                <span>{t.hoursAny}</span>
              </label>
              <label className="flex items-center gap-2 rounded-xl border border-line p-3">
                <input type="radio" name="hoursMode" className="accent-[#e8553d]" checked={hoursMode === "weekly"} onChange={() => setHoursMode("weekly")} />
                <span>{t.hoursWeekly}</span>
              </label>
            </fieldset>
            {hoursMode === "weekly" ? (
              <div className="flex flex-col gap-2" data-weekly-hours>
                {weekly.map((ranges, day) => (
                  <fieldset key={day} className="rounded-xl border border-line px-3 pb-3 pt-1">
                    <legend className="px-1 text-sm font-semibold">{days[day]}</legend>
                    {ranges.length === 0 ? <p className="text-sm text-muted">{t.closed}</p> : null}
                    {ranges.map(([from, to], i) => {
                      const label = { day: days[day]!, index: i + 1 };
                      return (
                        <div key={i} className="mt-1 flex items-center gap-2">
                          <select
                            className="input min-w-0 flex-1 px-2"
                            aria-label={fill(t.rangeFrom!, label)}
                            value={from}
                            onChange={(e) => setDay(day, ranges.map((r, j) => (j === i ? [Number(e.target.value), r[1]] : r)))}
                          >
                            {startMinutes.map((m) => (
                              <option key={m} value={m}>
                                {minuteText(m)}
                              </option>
                            ))}
                          </select>
                          <span aria-hidden="true">–</span>
                          <select
                            className="input min-w-0 flex-1 px-2"
                            aria-label={fill(t.rangeTo!, label)}
                            value={to}
                            onChange={(e) => setDay(day, ranges.map((r, j) => (j === i ? [r[0], Number(e.target.value)] : r)))}
                          >
                            {endMinutes.map((m) => (
                              <option key={m} value={m}>
                                {minuteText(m)}
                              </option>
                            ))}
                          </select>
                          <button type="button" className="btn btn-ghost h-10 w-10 shrink-0 p-0" aria-label={fill(t.removeRangeFor!, label)} onClick={() => setDay(day, ranges.filter((_, j) => j !== i))}>
                            ✕
                          </button>
                        </div>
                      );
                    })}
                    {ranges.length < MAX_RANGES_PER_DAY ? (
                      <button type="button" className="btn btn-ghost mt-1 px-2 py-1 text-sm" aria-label={fill(t.addRangeFor!, { day: days[day]! })} onClick={() => setDay(day, [...ranges, nextRange(ranges)])}>
                        + {t.addRange}
                      </button>
                    ) : null}
                  </fieldset>
                ))}
                <button type="button" className="btn btn-secondary text-sm" onClick={() => setWeekly((w) => w.map(() => w[0]!.map(([x, y]) => [x, y] as [number, number])))}>
                  {t.copyMonday}
                </button>
                <p className="text-sm font-medium text-red-600 dark:text-red-300" aria-live="polite" data-hours-problem>
                  {hoursProblem ?? ""}
                </p>
              </div>
            ) : null}
            <ChoiceField id="wizard-notice" label={t.noticeLabel} choices={noticeChoices} value={a.noticeMinutes} onChange={(noticeMinutes) => update({ noticeMinutes })} />
            <ChoiceField id="wizard-horizon" label={t.horizonLabel} choices={horizonChoices} value={a.horizonDays} onChange={(horizonDays) => update({ horizonDays })} />
            <div className="rounded-xl border border-line p-3">
              <label className="flex items-center justify-between gap-3">
                <span className="font-medium">{t.instantLabel}</span>
                <input type="checkbox" className="h-5 w-5 shrink-0 accent-[#e8553d]" checked={a.instantBooking} aria-describedby="wizard-instant-help" onChange={(e) => update({ instantBooking: e.target.checked })} />
              </label>
              <p id="wizard-instant-help" className="mt-1 text-sm text-muted">
                {t.instantHelp}
              </p>
            </div>
          </div>
        ) : (
          <div className="flex flex-col gap-3">
            <p className="text-sm text-muted">{fill(t.cityNote!, { place: `${city}, ${country}` })}</p>
            <label className="flex items-center gap-2 rounded-xl border border-line p-3">
              <input type="radio" name="meeting" className="accent-[#e8553d]" checked={a.hasMeetingPoint} onChange={() => update({ hasMeetingPoint: true })} />
              <span>{t.meetingNow}</span>
            </label>
            {a.hasMeetingPoint ? (
              <AddressInput
                name="meetingPoint"
                value={a.meetingPoint}
                label={t.meetingAddress!}
                placeholder={t.meetingPlaceholder!}
                geocoderUrl={geocoderUrl}
                near={`${city}, ${country}`}
                maxLength={MEETING_POINT_MAX}
                onValueChange={(meetingPoint) => update({ meetingPoint })}
              />
            ) : null}
            <label className="flex items-center gap-2 rounded-xl border border-line p-3">
              <input type="radio" name="meeting" className="accent-[#e8553d]" checked={!a.hasMeetingPoint} onChange={() => update({ hasMeetingPoint: false, meetingPoint: "" })} />
              <span>{t.meetingLater}</span>
            </label>
          </div>
        )}
      </div>

      <div className="mt-8 flex flex-col gap-3 pb-4">
        <div className="flex gap-3">
          {step === 1 ? (
            <a href="/host" className="btn btn-secondary flex-1">
              {t.back}
            </a>
          ) : (
            <button type="button" className="btn btn-secondary flex-1" onClick={() => setStep(step - 1)} disabled={busy}>
              {t.back}
            </button>
          )}
          {step < STEPS ? (
            <button type="button" className="btn btn-primary flex-1" disabled={!valid} onClick={() => setStep(step + 1)}>
              {t.next}
            </button>
          ) : (
            <button type="button" className="btn btn-primary flex-1" disabled={busy || (a.hasMeetingPoint && !a.meetingPoint.trim())} onClick={submit}>
              {busy ? t.saving : mode === "create" ? t.create : t.update}
            </button>
          )}
        </div>
        {mode === "edit" && step === STEPS ? (
          <button type="button" className="btn w-full text-red-600 hover:bg-red-50 dark:text-red-300" onClick={remove} disabled={busy}>
            {t.delete}
          </button>
        ) : null}
      </div>

      {sheet ? (
        <div className="fixed inset-0 z-50 flex items-end bg-black/40" onClick={() => setSheet(null)}>
          <div role="dialog" aria-modal="true" aria-labelledby="tips-title" className="mx-auto w-full max-w-screen-md rounded-t-3xl bg-surface p-5 shadow-2xl" onClick={(e) => e.stopPropagation()}>
            <div className="flex items-center justify-between">
              <h3 id="tips-title" className="text-lg font-bold">
                {sheet.heading}
              </h3>
              <button type="button" className="btn btn-ghost px-2.5" aria-label={t.close} onClick={() => setSheet(null)} autoFocus>
                ✕
              </button>
            </div>
            <ul className="mt-3 flex list-disc flex-col gap-2 pl-5 text-sm">
              {sheet.tips.map((tip) => (
                <li key={tip}>{tip}</li>
              ))}
            </ul>
            <p className="mt-4 text-sm font-semibold">{t.inspiration}</p>
            <ul className="mt-2 flex flex-col gap-1 text-sm text-muted">
              {sheet.examples.map((ex) => (
                <li key={ex}>“{ex}”</li>
              ))}
            </ul>
          </div>
        </div>
      ) : null}
    </div>
  );
}

export const mount = mountWith(ActivityWizard);
