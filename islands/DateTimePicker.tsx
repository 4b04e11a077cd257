/** @jsxImportSource react */
import { useMemo, useState } from "react";
import { mountWith } from "./mount";
import { startTaken as takenOn } from "../shared/availability";

export interface DateTimePickerProps {
  action: string;
  csrf: string;
  locale: "en" | "fr";
  zone: string;
  /** Every date with a start that may be chosen, YYYY-MM-DD, in the activity's city. */
  dates: string[];
  /** Per date, local minute ranges [from, to) the host is busy or does not offer. */
  busy: Record<string, [number, number][]>;
  now: { date: string; minute: number };
  firstHour: number;
  lastHour: number;
  durations: number[];
  minMinutes: number;
  /** The shortest booking one can start (the server's `openTimes`). */
  shortest: number;
  maxMinutes: number;
  hourlyRateCents: number;
  selected: { date: string; time: string; durationMinutes: number };
  /** Per duration in minutes, its words for the total line ("1.5 hours", "1,5 heure"). */
  durationTexts: Record<number, string>;
  texts: Record<"date" | "time" | "duration" | "greyed" | "continue" | "prevMonth" | "nextMonth" | "total" | "taken" | "browserZone", string>;
}

const pad = (n: number) => String(n).padStart(2, "0");
const utc = (date: string) => {
  const [y = 2000, m = 1, d = 1] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d));
};

/**
 * The picker's formatters, made once per language: making an Intl formatter costs far more than
 * using one, and a month's calendar uses them some sixty times per render.
 */
const formatters = new Map<string, ReturnType<typeof makeFormatters>>();
function makeFormatters(locale: "en" | "fr") {
  const intl = locale === "fr" ? "fr-FR" : "en-US";
  const unit = (unit: "minute" | "hour") => new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "narrow" });
  const weekday = new Intl.DateTimeFormat(intl, { weekday: "narrow", timeZone: "UTC" });
  return {
    weekdays: Array.from({ length: 7 }, (_, i) => weekday.format(Date.UTC(2024, 0, 1 + i))),
    hour: new Intl.DateTimeFormat(intl, { hour: "numeric", minute: "2-digit", hour12: locale !== "fr", timeZone: "UTC" }),
    minutes: unit("minute"),
    hours: unit("hour"),
    money: new Intl.NumberFormat(intl, { style: "currency", currency: "USD", minimumFractionDigits: 2 }),
    month: new Intl.DateTimeFormat(intl, { month: "long", year: "numeric", timeZone: "UTC" }),
    fullDate: new Intl.DateTimeFormat(intl, { dateStyle: "full", timeZone: "UTC" }),
    shortDate: new Intl.DateTimeFormat(intl, { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" }),
  };
}
const formattersFor = (locale: "en" | "fr") => formatters.get(locale) ?? formatters.set(locale, makeFormatters(locale)).get(locale)!;

/**
 * The date-time screen's picker: a one-month calendar (today to the activity's horizon, days
 * with nothing to offer greyed out), hourly start times with taken ones disabled, and half-hour durations within the host's range. It posts the
 * same form as the server-rendered fallback it replaces, so the server checks everything again.
 */
function DateTimePicker(p: DateTimePickerProps) {
  const f = formattersFor(p.locale);
  const [date, setDate] = useState(p.selected.date);
  const [time, setTime] = useState(p.selected.time);
  const [minutes, setMinutes] = useState(p.selected.durationMinutes);
  const first = p.dates[0] ?? p.now.date;
  const [month, setMonth] = useState((date || first).slice(0, 7));
  const available = useMemo(() => new Set(p.dates), [p.dates]);
  const months = useMemo(() => [...new Set(p.dates.map((d) => d.slice(0, 7)))], [p.dates]);

  const busy = (d: string, from: number, to: number) => (p.busy[d] ?? []).some(([a, b]) => from < b && to > a);
  const startTaken = (d: string, h: number) => !available.has(d) || takenOn(p.busy, p.now, d, h, p.shortest);
  const hourOf = (t: string) => Number(t.slice(0, 2));
  const durationOff = (m: number) => m < p.minMinutes || m > p.maxMinutes || (date !== "" && time !== "" && busy(date, hourOf(time) * 60, hourOf(time) * 60 + m));

  const chooseDate = (d: string) => {
    setDate(d);
    if (time && startTaken(d, hourOf(time))) setTime("");
  };
  const chooseTime = (t: string) => {
    setTime(t);
    if (minutes && busy(date, hourOf(t) * 60, hourOf(t) * 60 + minutes)) setMinutes(0);
  };

  const [y, m] = month.split("-").map(Number) as [number, number];
  const firstDay = new Date(Date.UTC(y, m - 1, 1));
  const daysInMonth = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const lead = (firstDay.getUTCDay() + 6) % 7; // weeks start on Monday
  const cells: (string | null)[] = [...Array.from({ length: lead }, () => null), ...Array.from({ length: daysInMonth }, (_, i) => `${month}-${pad(i + 1)}`)];
  const weekdays = f.weekdays;
  const monthIndex = months.indexOf(month);

  const hours = Array.from({ length: p.lastHour - p.firstHour + 1 }, (_, i) => p.firstHour + i);
  const hourText = (h: number) => f.hour.format(Date.UTC(2000, 0, 1, h));
  // As the server's fallback writes them (views/bookings/Parts.tsx durationLabel): "1.5h", "1,5h".
  const label = (mins: number) => (mins < 60 ? f.minutes.format(mins) : f.hours.format(mins / 60));
  const ready = date !== "" && time !== "" && minutes > 0 && !durationOff(minutes) && !startTaken(date, hourOf(time));
  const subtotal = Math.round((p.hourlyRateCents * minutes) / 60);
  const money = f.money.format(subtotal / 100);
  const browserZone = useMemo(() => {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch {
      return p.zone;
    }
  }, [p.zone]);

  const chip = (on: boolean, disabled: boolean) =>
    `rounded-xl border px-2 py-2 text-sm font-medium ${on ? "border-brand-600 bg-brand-600 text-white" : `border-line bg-surface ${disabled ? "" : "hover:bg-sunken"}`} ${disabled ? "cursor-not-allowed opacity-40 line-through" : ""}`;

  return (
    <form method="post" action={p.action} className="flex flex-col gap-5" data-hydrated="">
      <input type="hidden" name="_csrf" value={p.csrf} />
      <input type="hidden" name="date" value={date} />
      <input type="hidden" name="time" value={time} />
      <input type="hidden" name="duration" value={minutes ? String(minutes / 60) : ""} />
      {browserZone !== p.zone ? <p className="text-sm text-muted">{p.texts.browserZone}</p> : null}

      <fieldset className="card p-3">
        <legend className="px-1 font-semibold">{p.texts.date}</legend>
        <div className="mb-2 flex items-center justify-between">
          <button type="button" className="btn btn-ghost px-2.5" aria-label={p.texts.prevMonth} disabled={monthIndex <= 0} onClick={() => setMonth(months[monthIndex - 1]!)}>
            ‹
          </button>
          <span className="font-medium" aria-live="polite">
            {f.month.format(firstDay)}
          </span>
          <button type="button" className="btn btn-ghost px-2.5" aria-label={p.texts.nextMonth} disabled={monthIndex >= months.length - 1} onClick={() => setMonth(months[monthIndex + 1]!)}>
            ›
          </button>
        </div>
        <div className="grid grid-cols-7 gap-1 text-center text-xs text-muted" aria-hidden="true">
          {weekdays.map((w, i) => (
            <span key={i}>{w}</span>
          ))}
        </div>
        <div className="mt-1 grid grid-cols-7 gap-1" role="group" aria-label={p.texts.date}>
          {cells.map((d, i) =>
            d ? (
              <button
                key={d}
                type="button"
                data-date={d}
                disabled={!available.has(d)}
                aria-pressed={d === date}
                aria-label={f.fullDate.format(utc(d))}
                onClick={() => chooseDate(d)}
                className={`h-9 rounded-lg text-sm ${d === date ? "bg-brand-600 font-semibold text-white" : available.has(d) ? "hover:bg-sunken" : "text-muted opacity-40"}`}
              >
                {Number(d.slice(8))}
              </button>
            ) : (
              <span key={`x${i}`} />
            ),
          )}
        </div>
      </fieldset>

      <fieldset>
        <legend className="mb-2 font-semibold">{p.texts.time}</legend>
        <div className="grid grid-cols-3 gap-2">
          {hours.map((h) => {
            const value = `${pad(h)}:00`;
            const taken = date ? startTaken(date, h) : false;
            return (
              <button key={h} type="button" data-time={value} disabled={!date || taken} aria-pressed={time === value} title={taken ? p.texts.taken : undefined} className={chip(time === value, !date || taken)} onClick={() => chooseTime(value)}>
                {hourText(h)}
              </button>
            );
          })}
        </div>
      </fieldset>

      <fieldset>
        <legend className="mb-2 font-semibold">{p.texts.duration}</legend>
        <div className="grid grid-cols-4 gap-2">
          {p.durations.map((d) => {
            const off = durationOff(d);
            return (
              <button key={d} type="button" data-duration={d} disabled={off} aria-pressed={minutes === d} className={chip(minutes === d, off)} onClick={() => setMinutes(d)}>
                {label(d)}
              </button>
            );
          })}
        </div>
        <p className="mt-2 text-xs text-muted">{p.texts.greyed}</p>
      </fieldset>

      {ready ? (
        <p className="card p-3 font-medium" data-total aria-live="polite">
          {p.texts.total
            .replace("{duration}", p.durationTexts[minutes] ?? "")
            .replace("{price}", money)
            .replace("{date}", f.shortDate.format(utc(date)))
            .replace("{time}", hourText(hourOf(time)))}
        </p>
      ) : null}
      <button type="submit" className="btn btn-primary w-full" disabled={!ready}>
        {p.texts.continue}
      </button>
    </form>
  );
}

// Its formatters are made before the first render, in a task of their own (islands/mount.ts).
export const mount = mountWith(DateTimePicker, (p) => void formattersFor(p.locale));
