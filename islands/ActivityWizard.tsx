/** @jsxImportSource react */
import { useState } from "react";
import { ACTIVITY_DESCRIPTION_MAX, ACTIVITY_PHOTOS_MAX, ACTIVITY_TITLE_MAX, DURATION_MAX, DURATION_MIN, DURATION_STEP, MAX_RANGES_PER_DAY, MEETING_POINT_MAX, RATE_MAX_MINOR } from "../shared/limits";
import { checkWeeklyHours, clockText, DAY_MINUTES, HOURS_STEP_MINUTES, type DayRanges, type WeeklyHours, type WeeklyHoursProblem } from "../shared/availability";
import { AddressInput } from "./AddressInput";
import { callJson, RefusedCall, sendJson, toast } from "./api";
import { mountWith } from "./mount";
import { PhotoGrid, type PhotoGridProps } from "./PhotoGrid";
import { moneyFormatter, type MoneyFormat } from "../shared/money";

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
  /** What guests get back on cancelling (docs/decisions/0050). */
  cancellationPolicy: string;
  /** How it is sold (docs/decisions/0049); a group's fields as typed (numbers as strings, "" for none). */
  format: "private" | "group";
  capacity: string;
  pricePerPerson: string;
  /** 0 before a length is chosen. */
  sessionMinutes: number;
  minSpots: string;
  maxSpots: string;
  privateGroupPrice: string;
  minToRun: string;
  minToRunHours: number;
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
  /** The activity's currency (a new one's: the host's city's), its minor unit's decimals and its sign beside the price fields. */
  money: MoneyFormat & { symbol: string };
  geocoderUrl: string;
  categories: { value: string; label: string; photo: string }[];
  photoTexts: PhotoGridProps["texts"];
  /** The weekdays' names, Monday first. */
  days: string[];
  noticeChoices: { value: number; label: string }[];
  horizonChoices: { value: number; label: string }[];
  /** A group's session lengths (30 min … 8 h) and its minimum's deadlines, labelled. */
  sessionChoices: { value: number; label: string }[];
  deadlineChoices: { value: number; label: string }[];
  /** The cancellation policies, named and explained in the language. */
  policyChoices: { value: string; label: string; hint: string }[];
  tips: Record<"title" | "description" | "photos", Tips>;
  t: Record<string, string>;
}

const STEPS = 8;
/** The step that sets the price (and how it is sold), the one of durations, the one of when it can be booked. */
const PRICING_STEP = 4;
const DURATION_STEP_NUMBER = 6;
const AVAILABILITY_STEP = 7;
/** A group's sessions have one length, set with its price: it has no step of durations. */
const stepsOf = (format: WizardActivity["format"]) => (format === "group" ? [1, 2, 3, 4, 5, 7, 8] : [1, 2, 3, 4, 5, 6, 7, 8]);
/** The step each field the server may refuse is set on, so a refusal is shown under its field. */
const FIELD_STEP: Record<string, number> = {
  category: 1, title: 2, description: 3,
  hourlyRate: 4, format: 4, capacity: 4, pricePerPerson: 4, sessionMinutes: 4, minSpots: 4, maxSpots: 4, privateGroupPrice: 4, minToRun: 4, minToRunHours: 4,
  photos: 5, duration: 6, maxDuration: 6,
  weeklyHours: 7, noticeMinutes: 7, horizonDays: 7, instantBooking: 7, cancellationPolicy: 7,
  meetingPoint: 8, city: 8,
};
const CAPACITY_MIN = 2;
const CAPACITY_MAX = 50;
/** A whole number typed in a field, or null. */
const wholeOf = (text: string): number | null => (/^\s*\d{1,6}\s*$/.test(text) ? Number(text) : null);
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

/**
 * Minor units of the currency from what was typed (as many decimals as it has at most: none for
 * yen), or null when it is not a valid amount above zero: the server's rule (src/activities/prices.ts).
 */
function rateCents(rate: string, digits: number): number | null {
  const text = rate.trim().replace(",", ".");
  if (!/^\d{1,12}(\.\d{1,12})?$/.test(text)) return null;
  const [whole = "0", fraction = ""] = text.split(".");
  if (/[^0]/.test(fraction.slice(digits))) return null;
  const cents = Number(whole) * 10 ** digits + Number(fraction.slice(0, digits).padEnd(digits, "0") || "0");
  return cents > 0 && cents <= RATE_MAX_MINOR ? cents : null;
}

/**
 * What is wrong with a group's fields as typed, by field (the server's rules, src/activities/group.ts,
 * checked again as the host types; the server decides). A field left empty is not wrong here.
 */
function groupProblems(a: WizardActivity, t: Record<string, string>, digits: number): Record<string, string> {
  const problems: Record<string, string> = {};
  const capacity = wholeOf(a.capacity);
  const capacityOk = capacity !== null && capacity >= CAPACITY_MIN && capacity <= CAPACITY_MAX;
  if (a.capacity.trim() && !capacityOk) problems.capacity = t.capacityInvalid!;
  if (a.pricePerPerson.trim() && rateCents(a.pricePerPerson, digits) === null) problems.pricePerPerson = t.pricePerPersonInvalid!;
  const cap = capacityOk ? capacity : CAPACITY_MAX;
  const minSpots = a.minSpots.trim() ? wholeOf(a.minSpots) : 1;
  const maxSpots = a.maxSpots.trim() ? wholeOf(a.maxSpots) : cap;
  if (minSpots === null || minSpots < 1 || minSpots > cap) problems.minSpots = t.minSpotsInvalid!;
  else if (maxSpots === null || maxSpots < minSpots || maxSpots > cap) problems.maxSpots = t.maxSpotsInvalid!;
  if (a.privateGroupPrice.trim() && rateCents(a.privateGroupPrice, digits) === null) problems.privateGroupPrice = t.privateGroupPriceInvalid!;
  const minToRun = a.minToRun.trim() ? wholeOf(a.minToRun) : 0;
  if (minToRun === null || (minToRun !== 0 && (minToRun < 2 || minToRun > cap))) problems.minToRun = t.minToRunInvalid!;
  return problems;
}

/** Does a session of `minutes` fit in some day's range of the weekly hours (none set: any day 08:00–22:00 does)? */
const sessionFits = (hours: DayRanges[] | null, minutes: number) => !hours || hours.some((day) => day.some(([a, b]) => b - a >= minutes));

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

export function ActivityWizard({ mode, activity, city, country, money: currency, geocoderUrl, categories, photoTexts, days, noticeChoices, horizonChoices, sessionChoices, deadlineChoices, policyChoices, tips, t }: ActivityWizardProps) {
  const [step, setStep] = useState(1);
  const [a, setA] = useState<WizardActivity>(activity);
  const [hasMax, setHasMax] = useState(activity.maxDurationMinutes !== null);
  const [sheet, setSheet] = useState<Tips | null>(null);
  const [busy, setBusy] = useState(false);
  // The server's refusals by field, each shown under its field until that field is changed.
  const [refusals, setRefusals] = useState<Record<string, string>>({});
  const update = (patch: Partial<WizardActivity>) => {
    setA((current) => ({ ...current, ...patch }));
    setRefusals((current) => Object.fromEntries(Object.entries(current).filter(([field]) => !(field in patch))));
  };
  // Weekly hours as being edited; kept while "any day" is chosen, so switching back loses nothing.
  const [weekly, setWeekly] = useState<DayRanges[]>(activity.weeklyHours ?? closedWeek());
  const [hoursMode, setHoursMode] = useState<"any" | "weekly">(activity.weeklyHours ? "weekly" : "any");
  // The week as it was before "Copy Monday to every day", while that copy can be undone (until the next edit).
  const [weekBeforeCopy, setWeekBeforeCopy] = useState<DayRanges[] | null>(null);
  const setDay = (day: number, ranges: DayRanges) => {
    setWeekBeforeCopy(null);
    setWeekly((w) => w.map((r, d) => (d === day ? ranges : r)));
  };
  const mondayClosed = (weekly[0] ?? []).length === 0;
  const copyMonday = () => {
    setWeekBeforeCopy(weekly);
    setWeekly(weekly.map(() => weekly[0]!.map(([x, y]) => [x, y] as [number, number])));
  };
  const undoCopy = () => {
    if (weekBeforeCopy) setWeekly(weekBeforeCopy);
    setWeekBeforeCopy(null);
  };
  const checked = checkWeeklyHours(weekly);
  const group = a.format === "group";
  const hoursProblem =
    hoursMode === "any"
      ? null
      : !checked.ok
        ? fill(t[PROBLEM_TEXT[checked.problem]]!, { day: days[checked.day]! })
        : checked.hours.every((d) => !d.length)
          ? t.hoursEmpty!
          : group && a.sessionMinutes && !sessionFits(checked.hours, a.sessionMinutes)
            ? t.sessionOutsideHours!
            : null;
  const problems = group ? groupProblems(a, t, currency.digits) : {};
  // A field's message: the server's refusal, else what is wrong with it as typed.
  const errorOf = (field: string): string | undefined => refusals[field] ?? problems[field];
  const steps = stepsOf(a.format);
  const position = steps.indexOf(step) + 1;

  const money = moneyFormatter(t.locale!, currency);
  // A price field's smallest step: a cent, a yen.
  const priceStep = String(10 ** -currency.digits);
  const symbolPad = currency.symbol.length > 1 ? "input pl-10" : "input pl-7";
  // "1.5 h" in English, "1,5 h" in French, as the server writes it (views/activities/Detail.tsx).
  const duration = (m: number) => (m < 60 ? fill(t.minutes!, { n: m }) : fill(t.hours!, { n: numberFormat(t.locale, { maximumFractionDigits: 1 }).format(m / 60) }));

  const valid = [
    Boolean(a.category),
    a.title.trim().length > 0 && a.title.length <= ACTIVITY_TITLE_MAX,
    a.description.trim().length > 0 && a.description.length <= ACTIVITY_DESCRIPTION_MAX,
    group ? Boolean(wholeOf(a.capacity)) && rateCents(a.pricePerPerson, currency.digits) !== null && a.sessionMinutes > 0 && Object.keys(problems).length === 0 : rateCents(a.hourlyRate, currency.digits) !== null,
    a.photos.length > 0,
    a.minDurationMinutes > 0,
    hoursProblem === null,
    true,
  ][step - 1];

  // What the breakdown shows: the hourly rate, or a group's price per person.
  const breakdown = rateCents(group ? a.pricePerPerson : a.hourlyRate, currency.digits);
  const maxDuration = hasMax ? Math.max(a.maxDurationMinutes ?? a.minDurationMinutes + DURATION_STEP, a.minDurationMinutes + DURATION_STEP) : null;

  const finish = (message: string) => {
    try {
      sessionStorage.setItem("toast", JSON.stringify({ title: message, variant: "success" }));
    } catch {}
    location.assign("/host");
  };

  const submit = async () => {
    setBusy(true);
    // A group is priced per person for sessions of one length; a private activity by the hour, for its durations.
    const selling = group
      ? {
          format: "group",
          capacity: a.capacity,
          pricePerPerson: a.pricePerPerson,
          sessionMinutes: a.sessionMinutes,
          minSpots: a.minSpots,
          maxSpots: a.maxSpots,
          privateGroupPrice: a.privateGroupPrice,
          minToRun: a.minToRun,
          minToRunHours: a.minToRunHours,
        }
      : { format: "private", hourlyRate: a.hourlyRate, duration: String(a.minDurationMinutes / 60), maxDuration: maxDuration === null ? null : String(maxDuration / 60) };
    const body = {
      category: a.category,
      title: a.title,
      description: a.description,
      ...selling,
      photos: a.photos,
      hasMeetingPoint: a.hasMeetingPoint,
      meetingPoint: a.hasMeetingPoint ? a.meetingPoint : "",
      weeklyHours: hoursMode === "weekly" && checked.ok ? checked.hours : null,
      noticeMinutes: a.noticeMinutes,
      horizonDays: a.horizonDays,
      instantBooking: a.instantBooking,
      cancellationPolicy: a.cancellationPolicy,
      ...(mode === "create" ? { country, city } : {}),
    };
    try {
      if (mode === "create") await sendJson("/api/activities", { method: "POST", body });
      else await sendJson(`/api/activities/${a.id}`, { method: "PATCH", body });
      finish(mode === "create" ? t.created! : t.updated!);
    } catch (err) {
      // Each refused field's message goes under it, on its step: the earliest such step is shown.
      const fields = err instanceof RefusedCall ? err.fields : {};
      const refusedSteps = Object.keys(fields).map((field) => FIELD_STEP[field]).filter((n): n is number => n !== undefined && steps.includes(n));
      if (refusedSteps.length) {
        setRefusals(fields);
        setStep(Math.min(...refusedSteps));
      }
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
  /** A field's refusal, tied to its input by `wizard-{field}-error`. */
  const fieldError = (field: string) => {
    const message = errorOf(field);
    return message ? (
      <p id={`wizard-${field}-error`} className="text-sm font-medium text-red-600 dark:text-red-300" role="alert">
        {message}
      </p>
    ) : null;
  };
  const invalidProps = (field: string, ...described: string[]) => {
    const ids = [...described, ...(errorOf(field) ? [`wizard-${field}-error`] : [])];
    return { "aria-invalid": errorOf(field) ? true : undefined, "aria-describedby": ids.length ? ids.join(" ") : undefined };
  };
  const goTo = (direction: 1 | -1) => setStep(steps[position - 1 + direction] ?? step);
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
        <p className="text-sm font-medium text-muted">{fill(t.progress!, { step: position, total: steps.length })}</p>
        <a href="/host" className="btn-icon" aria-label={t.close}>
          ✕
        </a>
      </div>
      <div className="mt-2 h-1.5 overflow-hidden rounded-full bg-sunken" role="progressbar" aria-valuemin={1} aria-valuemax={steps.length} aria-valuenow={position} aria-label={t.title}>
        <div className="h-full rounded-full bg-brand-500" style={{ width: `${(position / steps.length) * 100}%` }} />
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
            <input id="wizard-title" className="input" value={a.title} maxLength={ACTIVITY_TITLE_MAX} placeholder={t.titlePlaceholder} onChange={(e) => update({ title: e.target.value })} autoFocus {...invalidProps("title")} />
            {fieldError("title")}
            <span className="text-right text-xs text-muted">{fill(t.titleCount!, { count: a.title.length })}</span>
          </div>
        ) : step === 3 ? (
          <div className="field">
            <label className="field-label" htmlFor="wizard-description">
              {t.descriptionLabel}
            </label>
            <textarea id="wizard-description" className="input" rows={5} value={a.description} maxLength={ACTIVITY_DESCRIPTION_MAX} placeholder={t.descriptionPlaceholder} onChange={(e) => update({ description: e.target.value })} autoFocus {...invalidProps("description")} />
            {fieldError("description")}
            <span className="text-right text-xs text-muted">{fill(t.descriptionCount!, { count: a.description.length })}</span>
          </div>
        ) : step === PRICING_STEP ? (
          <div className="flex flex-col gap-4">
            <fieldset className="flex flex-col gap-2" {...invalidProps("format")}>
              <legend className="field-label mb-1">{t.formatLabel}</legend>
              {(["private", "group"] as const).map((format) => (
                <label key={format} className={`flex items-start gap-2 rounded-xl border p-3 ${a.format === format ? "border-brand-500 bg-brand-50 dark:bg-brand-900/40" : "border-line"}`}>
                  <input
                    type="radio"
                    name="format"
                    value={format}
                    className="mt-1 accent-[#e8553d]"
                    checked={a.format === format}
                    aria-describedby={`wizard-format-${format}-hint`}
                    onChange={() => update({ format, sessionMinutes: format === "group" && !a.sessionMinutes ? Math.min(Math.max(a.minDurationMinutes, 30), 480) : a.sessionMinutes })}
                  />
                  <span>
                    <span className="block font-medium">{format === "group" ? t.formatGroup : t.formatPrivate}</span>
                    <span id={`wizard-format-${format}-hint`} className="block text-sm text-muted">
                      {format === "group" ? t.formatGroupHint : t.formatPrivateHint}
                    </span>
                  </span>
                </label>
              ))}
              {fieldError("format")}
            </fieldset>
            {group ? (
              <div className="flex flex-col gap-4" data-group-fields>
                <div className="field">
                  <label className="field-label" htmlFor="wizard-capacity">
                    {t.capacityLabel}
                  </label>
                  <input id="wizard-capacity" className="input" type="number" inputMode="numeric" min={CAPACITY_MIN} max={CAPACITY_MAX} step={1} value={a.capacity} onChange={(e) => update({ capacity: e.target.value })} {...invalidProps("capacity")} />
                  {fieldError("capacity")}
                </div>
                <div className="field">
                  <label className="field-label" htmlFor="wizard-pricePerPerson">
                    {t.pricePerPersonLabel}
                  </label>
                  <div className="relative">
                    <span className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted">{currency.symbol}</span>
                    <input id="wizard-pricePerPerson" className={symbolPad} inputMode="decimal" type="number" step={priceStep} min={priceStep} value={a.pricePerPerson} onChange={(e) => update({ pricePerPerson: e.target.value })} {...invalidProps("pricePerPerson")} />
                  </div>
                  {fieldError("pricePerPerson")}
                </div>
                <div className="field">
                  <label className="field-label" htmlFor="wizard-sessionMinutes">
                    {t.sessionLabel}
                  </label>
                  <select id="wizard-sessionMinutes" className="input" value={a.sessionMinutes || ""} onChange={(e) => update({ sessionMinutes: Number(e.target.value) })} {...invalidProps("sessionMinutes")}>
                    {a.sessionMinutes ? null : <option value="" />}
                    {sessionChoices.map((c) => (
                      <option key={c.value} value={c.value}>
                        {c.label}
                      </option>
                    ))}
                  </select>
                  {fieldError("sessionMinutes")}
                </div>
                <div className="grid grid-cols-2 gap-3">
                  <div className="field min-w-0">
                    <label className="field-label" htmlFor="wizard-minSpots">
                      {t.minSpotsLabel}
                    </label>
                    <input id="wizard-minSpots" className="input" type="number" inputMode="numeric" min={1} step={1} placeholder="1" value={a.minSpots} onChange={(e) => update({ minSpots: e.target.value })} {...invalidProps("minSpots")} />
                  </div>
                  <div className="field min-w-0">
                    <label className="field-label" htmlFor="wizard-maxSpots">
                      {t.maxSpotsLabel}
                    </label>
                    <input id="wizard-maxSpots" className="input" type="number" inputMode="numeric" min={1} step={1} placeholder={a.capacity} value={a.maxSpots} onChange={(e) => update({ maxSpots: e.target.value })} {...invalidProps("maxSpots")} />
                  </div>
                </div>
                {fieldError("minSpots")}
                {fieldError("maxSpots")}
                <div className="field">
                  <label className="field-label" htmlFor="wizard-privateGroupPrice">
                    {t.privateGroupLabel}
                  </label>
                  <div className="relative">
                    <span className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted">{currency.symbol}</span>
                    <input id="wizard-privateGroupPrice" className={symbolPad} inputMode="decimal" type="number" step={priceStep} min={priceStep} value={a.privateGroupPrice} onChange={(e) => update({ privateGroupPrice: e.target.value })} {...invalidProps("privateGroupPrice", "wizard-privateGroup-hint")} />
                  </div>
                  <p id="wizard-privateGroup-hint" className="text-sm text-muted">
                    {t.privateGroupHint}
                  </p>
                  {fieldError("privateGroupPrice")}
                </div>
                <div className="field">
                  <label className="field-label" htmlFor="wizard-minToRun">
                    {t.minToRunLabel}
                  </label>
                  <input id="wizard-minToRun" className="input" type="number" inputMode="numeric" min={2} step={1} placeholder={t.minToRunNone} value={a.minToRun} onChange={(e) => update({ minToRun: e.target.value })} {...invalidProps("minToRun", "wizard-minToRun-hint")} />
                  <p id="wizard-minToRun-hint" className="text-sm text-muted">
                    {t.minToRunHint}
                  </p>
                  {fieldError("minToRun")}
                </div>
                {a.minToRun.trim() ? (
                  <div className="field">
                    <label className="field-label" htmlFor="wizard-minToRunHours">
                      {t.minToRunHoursLabel}
                    </label>
                    <select id="wizard-minToRunHours" className="input" value={a.minToRunHours} onChange={(e) => update({ minToRunHours: Number(e.target.value) })} {...invalidProps("minToRunHours")}>
                      {deadlineChoices.map((c) => (
                        <option key={c.value} value={c.value}>
                          {c.label}
                        </option>
                      ))}
                    </select>
                    {fieldError("minToRunHours")}
                  </div>
                ) : null}
              </div>
            ) : (
              <div className="field">
                <label className="field-label" htmlFor="wizard-rate">
                  {t.rateLabel}
                </label>
                <div className="relative">
                  <span className="pointer-events-none absolute left-3 top-1/2 -translate-y-1/2 text-muted">{currency.symbol}</span>
                  <input id="wizard-rate" className={symbolPad} inputMode="decimal" type="number" step={priceStep} min={priceStep} value={a.hourlyRate} onChange={(e) => update({ hourlyRate: e.target.value })} {...invalidProps("hourlyRate")} />
                </div>
                {fieldError("hourlyRate")}
              </div>
            )}
            <details className="card p-4">
              <summary className="cursor-pointer font-medium">{t.breakdown}</summary>
              {breakdown ? (
                <dl className="mt-3 flex flex-col gap-1 text-sm" aria-live="polite">
                  <div className="flex justify-between">
                    <dt>{group ? t.perPersonLine : t.rateLine}</dt>
                    <dd>{money(breakdown)}</dd>
                  </div>
                  <div className="flex justify-between text-muted">
                    <dt>{t.feeLine}</dt>
                    <dd>−{money(Math.round(breakdown * 0.2))}</dd>
                  </div>
                  <div className="flex justify-between font-semibold">
                    <dt>{group ? t.earnPerPerson : t.earnLine}</dt>
                    <dd data-earnings>{money(breakdown - Math.round(breakdown * 0.2))}</dd>
                  </div>
                </dl>
              ) : (
                <p className="mt-2 text-sm text-muted">{group ? t.enterPricePerPerson : t.enterRate}</p>
              )}
            </details>
          </div>
        ) : step === 5 ? (
          <div>
            <PhotoGrid name="photos" photos={a.photos} max={ACTIVITY_PHOTOS_MAX} endpoint="/api/activity-images" texts={photoTexts} onChange={(photos) => update({ photos })} />
            {fieldError("photos")}
          </div>
        ) : step === DURATION_STEP_NUMBER ? (
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
            {fieldError("duration")}
            {fieldError("maxDuration")}
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
                                {clockText(m, t.locale!)}
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
                                {clockText(m, t.locale!)}
                              </option>
                            ))}
                          </select>
                          <button type="button" className="btn btn-ghost h-11 w-11 shrink-0 p-0" aria-label={fill(t.removeRangeFor!, label)} onClick={() => setDay(day, ranges.filter((_, j) => j !== i))}>
                            ✕
                          </button>
                        </div>
                      );
                    })}
                    {ranges.length < MAX_RANGES_PER_DAY ? (
                      <button type="button" className="btn btn-ghost mt-1 min-h-11 px-2 py-1 text-sm" aria-label={fill(t.addRangeFor!, { day: days[day]! })} onClick={() => setDay(day, [...ranges, nextRange(ranges)])}>
                        + {t.addRange}
                      </button>
                    ) : null}
                  </fieldset>
                ))}
                {/* A closed Monday would empty the whole week: the button waits for Monday's hours, and says so. */}
                <button type="button" className="btn btn-secondary text-sm" disabled={mondayClosed} aria-describedby={mondayClosed ? "wizard-copy-help" : undefined} onClick={copyMonday}>
                  {t.copyMonday}
                </button>
                {mondayClosed ? (
                  <p id="wizard-copy-help" className="text-sm text-muted">
                    {t.copyMondayClosed}
                  </p>
                ) : null}
                <div className="flex items-center justify-between gap-3" aria-live="polite" data-copy-status>
                  {weekBeforeCopy ? (
                    <>
                      <span className="text-sm">{t.copiedMonday}</span>
                      <button type="button" className="btn btn-ghost shrink-0 text-sm" onClick={undoCopy}>
                        {t.undo}
                      </button>
                    </>
                  ) : null}
                </div>
                <p className="text-sm font-medium text-red-600 dark:text-red-300" aria-live="polite" data-hours-problem>
                  {hoursProblem ?? refusals.weeklyHours ?? ""}
                </p>
              </div>
            ) : null}
            <ChoiceField id="wizard-notice" label={t.noticeLabel} choices={noticeChoices} value={a.noticeMinutes} onChange={(noticeMinutes) => update({ noticeMinutes })} />
            <ChoiceField id="wizard-horizon" label={t.horizonLabel} choices={horizonChoices} value={a.horizonDays} onChange={(horizonDays) => update({ horizonDays })} />
            {fieldError("noticeMinutes")}
            {fieldError("horizonDays")}
            {hoursMode === "any" ? fieldError("weeklyHours") : null}
            <div className="rounded-xl border border-line p-3">
              <label className="flex items-center justify-between gap-3">
                <span className="font-medium">{t.instantLabel}</span>
                <input type="checkbox" className="h-5 w-5 shrink-0 accent-[#e8553d]" checked={a.instantBooking} aria-describedby="wizard-instant-help" onChange={(e) => update({ instantBooking: e.target.checked })} />
              </label>
              <p id="wizard-instant-help" className="mt-1 text-sm text-muted">
                {t.instantHelp}
              </p>
            </div>
            <fieldset className="flex flex-col gap-2" aria-describedby={["wizard-policy-help", ...(errorOf("cancellationPolicy") ? ["wizard-cancellationPolicy-error"] : [])].join(" ")}>
              <legend className="field-label">{t.policyLabel}</legend>
              <p id="wizard-policy-help" className="text-sm text-muted">
                {t.policyHelp}
              </p>
              {policyChoices.map((p) => (
                <label key={p.value} className="flex items-start gap-2 rounded-xl border border-line p-3 has-[:checked]:border-brand-500">
                  <input type="radio" name="cancellationPolicy" value={p.value} className="mt-1 accent-[#e8553d]" checked={a.cancellationPolicy === p.value} onChange={() => update({ cancellationPolicy: p.value })} />
                  <span>
                    <span className="block font-medium">{p.label}</span>
                    <span className="block text-sm text-muted">{p.hint}</span>
                  </span>
                </label>
              ))}
              {fieldError("cancellationPolicy")}
            </fieldset>
          </div>
        ) : (
          <div className="flex flex-col gap-3">
            <p className="text-sm text-muted">{fill(t.cityNote!, { place: `${city}, ${country}` })}</p>
            {fieldError("city")}
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
            {fieldError("meetingPoint")}
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
            <button type="button" className="btn btn-secondary flex-1" onClick={() => goTo(-1)} disabled={busy}>
              {t.back}
            </button>
          )}
          {step < STEPS ? (
            <button type="button" className="btn btn-primary flex-1" disabled={!valid} onClick={() => goTo(1)}>
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
              <button type="button" className="btn-icon" aria-label={t.close} onClick={() => setSheet(null)} autoFocus>
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
