/** @jsxImportSource react */
import { useState } from "react";
import { ACTIVITY_DESCRIPTION_MAX, ACTIVITY_PHOTOS_MAX, ACTIVITY_TITLE_MAX, DURATION_MAX, DURATION_MIN, DURATION_STEP, MEETING_POINT_MAX } from "../shared/limits";
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
  tips: Record<"title" | "description" | "photos", Tips>;
  t: Record<string, string>;
}

const STEPS = 7;
const fill = (text: string, values: Record<string, string | number>) => text.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ""));

/** Cents from what was typed, or null when it is not a valid amount above zero. */
function rateCents(rate: string): number | null {
  const text = rate.trim().replace(",", ".");
  if (!/^\d+(\.\d{1,2})?$/.test(text)) return null;
  const [whole = "0", fraction = ""] = text.split(".");
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
  return cents > 0 ? cents : null;
}

/**
 * The seven-step activity wizard (spec §2, §5): category, title, description, pricing, photos,
 * duration, location. Next stays disabled until the step's rule holds; the last step creates or
 * updates through the JSON API, and in edit mode can delete after a confirmation.
 */
export function ActivityWizard({ mode, activity, city, country, geocoderUrl, categories, photoTexts, tips, t }: ActivityWizardProps) {
  const [step, setStep] = useState(1);
  const [a, setA] = useState<WizardActivity>(activity);
  const [hasMax, setHasMax] = useState(activity.maxDurationMinutes !== null);
  const [sheet, setSheet] = useState<Tips | null>(null);
  const [busy, setBusy] = useState(false);
  const update = (patch: Partial<WizardActivity>) => setA((current) => ({ ...current, ...patch }));

  const money = (cents: number) => new Intl.NumberFormat(t.locale, { style: "currency", currency: "USD" }).format(cents / 100);
  // "1.5 h" in English, "1,5 h" in French, as the server writes it (views/activities/Detail.tsx).
  const decimal = new Intl.NumberFormat(t.locale, { maximumFractionDigits: 1 });
  const duration = (m: number) => (m < 60 ? fill(t.minutes!, { n: m }) : fill(t.hours!, { n: decimal.format(m / 60) }));

  const valid = [
    Boolean(a.category),
    a.title.trim().length > 0 && a.title.length <= ACTIVITY_TITLE_MAX,
    a.description.trim().length > 0 && a.description.length <= ACTIVITY_DESCRIPTION_MAX,
    rateCents(a.hourlyRate) !== null,
    a.photos.length > 0,
    a.minDurationMinutes > 0,
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

  const stepTitles = [t.step1, t.step2, t.step3, t.step4, t.step5, t.step6, t.step7];
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
