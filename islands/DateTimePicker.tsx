/** @jsxImportSource react */
import { useMemo, useState } from "react";
import { mountWith } from "./mount";
import { startTaken as takenOn } from "../shared/availability";
import { groupPriceFor } from "../shared/pricing";
import type { SeatsOffer } from "../shared/seats";
import { moneyFormatter, type MoneyFormat } from "../shared/money";

/**
 * A group activity's part of the picker (docs/decisions/0049): the spots left per date and start
 * hour (0: full; a start not listed is not open), the bounds of one booking, the prices, the
 * session's fixed length, and its words, made by the server in the person's language.
 */
export interface GroupPickerProps extends SeatsOffer {
  sessionMinutes: number;
  /** Per count of spots left, its words: "Full", "1 spot left", "3 spots left". */
  spotsLeftTexts: Record<number, string>;
  /** Per count of spots, the subtotal's words: "3 spots × $25.00". */
  subtotalLabels: Record<number, string>;
  texts: Record<"spots" | "fewer" | "more" | "hint" | "privateHint" | "privateGroup" | "privateGroupHint" | "privateLabel" | "session" | "serviceFee" | "total", string>;
}

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
  /** The activity's currency and its minor unit's decimals: its prices and totals are in it. */
  money: MoneyFormat;
  selected: { date: string; time: string; durationMinutes: number; spots: number; privateGroup: boolean };
  /** Set for a group activity: its seats, and no duration to choose. */
  group: GroupPickerProps | null;
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
    month: new Intl.DateTimeFormat(intl, { month: "long", year: "numeric", timeZone: "UTC" }),
    fullDate: new Intl.DateTimeFormat(intl, { dateStyle: "full", timeZone: "UTC" }),
    shortDate: new Intl.DateTimeFormat(intl, { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" }),
  };
}
const intlOf = (locale: "en" | "fr") => (locale === "fr" ? "fr-FR" : "en-US");
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
  const g = p.group;
  // A group session has one length: it is the duration sent.
  const [minutes, setMinutes] = useState(g ? g.sessionMinutes : p.selected.durationMinutes);
  const [spotsText, setSpotsText] = useState(Number.isInteger(p.selected.spots) && p.selected.spots >= 0 ? String(p.selected.spots) : "");
  const [asPrivate, setPrivate] = useState(!!g && g.privateGroupPriceCents !== null && p.selected.privateGroup);
  const first = p.dates[0] ?? p.now.date;
  const [month, setMonth] = useState((date || first).slice(0, 7));
  const available = useMemo(() => new Set(p.dates), [p.dates]);
  const months = useMemo(() => [...new Set(p.dates.map((d) => d.slice(0, 7)))], [p.dates]);

  const busy = (d: string, from: number, to: number) => (p.busy[d] ?? []).some(([a, b]) => from < b && to > a);
  // A group's start is open while it has spots left (the server's `openTimes` lists them).
  const spotsLeft = (d: string, h: number): number | undefined => g?.spots[d]?.[h];
  const startTaken = (d: string, h: number) => !available.has(d) || (g ? !spotsLeft(d, h) : takenOn(p.busy, p.now, d, h, p.shortest));
  const hourOf = (t: string) => Number(t.slice(0, 2));
  const durationOff = (m: number) => !g && (m < p.minMinutes || m > p.maxMinutes || (date !== "" && time !== "" && busy(date, hourOf(time) * 60, hourOf(time) * 60 + m)));

  // The spots, within the booking's bounds (1 to the capacity for a private group), and their price.
  const spotsMin = g ? (asPrivate ? 1 : g.min) : 1;
  const spotsMax = g ? (asPrivate ? g.capacity : g.max) : 1;
  const typedSpots = spotsText.trim() === "" ? Number.NaN : Number(spotsText);
  const spotsOk = Number.isInteger(typedSpots) && typedSpots >= spotsMin && typedSpots <= spotsMax;
  const counted = Number.isInteger(typedSpots) ? Math.min(Math.max(typedSpots, spotsMin), spotsMax) : spotsMin;
  const stepSpots = (by: number) => setSpotsText(String(Math.min(Math.max((Number.isInteger(typedSpots) ? typedSpots : spotsMin) + by, spotsMin), spotsMax)));
  const groupPrice = g ? groupPriceFor(g.pricePerPersonCents, counted, asPrivate ? g.privateGroupPriceCents : null) : null;

  const chooseDate = (d: string) => {
    setDate(d);
    if (time && startTaken(d, hourOf(time))) setTime("");
  };
  const chooseTime = (t: string) => {
    setTime(t);
    if (!g && minutes && busy(date, hourOf(t) * 60, hourOf(t) * 60 + minutes)) setMinutes(0);
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
  const ready = date !== "" && time !== "" && minutes > 0 && !durationOff(minutes) && !startTaken(date, hourOf(time)) && (!g || spotsOk);
  const subtotal = groupPrice ? groupPrice.subtotalCents : Math.round((p.hourlyRateCents * minutes) / 60);
  const money = moneyFormatter(intlOf(p.locale), p.money)(subtotal);
  const browserZone = useMemo(() => {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch {
      return p.zone;
    }
  }, [p.zone]);

  const chip = (on: boolean, disabled: boolean) =>
    `min-h-11 rounded-xl border px-2 py-2 text-sm font-medium ${on ? "border-brand-600 bg-brand-600 text-white" : `border-line bg-surface ${disabled ? "" : "hover:bg-sunken"}`} ${disabled ? "cursor-not-allowed opacity-40 line-through" : ""}`;

  return (
    <form method="post" action={p.action} className="flex flex-col gap-5" data-hydrated="">
      <input type="hidden" name="_csrf" value={p.csrf} />
      <input type="hidden" name="date" value={date} />
      <input type="hidden" name="time" value={time} />
      <input type="hidden" name="duration" value={minutes ? String(minutes / 60) : ""} />
      {g ? <input type="hidden" name="spots" value={spotsText} /> : null}
      {g ? <input type="hidden" name="privateGroup" value={String(asPrivate)} /> : null}
      {browserZone !== p.zone ? <p className="text-sm text-muted">{p.texts.browserZone}</p> : null}

      {/* Seven 44 px days (WCAG 2.5.5) fit a 360 px screen only edge to edge: the card keeps little padding and the days no gap. */}
      <fieldset className="card px-1.5 py-3">
        <legend className="px-1 font-semibold">{p.texts.date}</legend>
        <div className="mb-2 flex items-center justify-between">
          <button type="button" className="btn-icon" aria-label={p.texts.prevMonth} disabled={monthIndex <= 0} onClick={() => setMonth(months[monthIndex - 1]!)}>
            ‹
          </button>
          <span className="font-medium" aria-live="polite">
            {f.month.format(firstDay)}
          </span>
          <button type="button" className="btn-icon" aria-label={p.texts.nextMonth} disabled={monthIndex >= months.length - 1} onClick={() => setMonth(months[monthIndex + 1]!)}>
            ›
          </button>
        </div>
        <div className="grid grid-cols-7 text-center text-xs text-muted" aria-hidden="true">
          {weekdays.map((w, i) => (
            <span key={i}>{w}</span>
          ))}
        </div>
        <div className="mt-1 grid grid-cols-7" role="group" aria-label={p.texts.date}>
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
                className={`h-11 rounded-lg text-sm ${d === date ? "bg-brand-600 font-semibold text-white" : available.has(d) ? "hover:bg-sunken" : "text-muted opacity-40"}`}
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
            const left = date ? spotsLeft(date, h) : undefined;
            const seats = left === undefined ? null : g!.spotsLeftTexts[left];
            return (
              <button
                key={h}
                type="button"
                data-time={value}
                data-spots-left={left}
                disabled={!date || taken}
                aria-pressed={time === value}
                title={taken && !seats ? p.texts.taken : undefined}
                className={`${chip(time === value, !date || taken)} ${seats ? "flex flex-col items-center leading-tight" : ""}`}
                onClick={() => chooseTime(value)}
              >
                {hourText(h)}
                {seats ? <span className="text-xs font-normal">{seats}</span> : null}
              </button>
            );
          })}
        </div>
      </fieldset>

      {g ? (
        <GroupChoice
          g={g}
          locale={p.locale}
          money={p.money}
          spotsText={spotsText}
          setSpotsText={setSpotsText}
          spotsMin={spotsMin}
          spotsMax={spotsMax}
          spotsOk={spotsOk}
          counted={counted}
          step={stepSpots}
          asPrivate={asPrivate}
          setPrivate={setPrivate}
        />
      ) : (
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
      )}

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

/**
 * A group session's choice: its fixed length, the spots (a number input with − and +, within the
 * bounds), the private group when the host offers it, and the total (spots × the price per
 * person, or the private group's price when higher, plus the service fee), read out as it changes.
 */
function GroupChoice(props: {
  g: GroupPickerProps;
  locale: "en" | "fr";
  money: MoneyFormat;
  spotsText: string;
  setSpotsText: (text: string) => void;
  spotsMin: number;
  spotsMax: number;
  spotsOk: boolean;
  counted: number;
  step: (by: number) => void;
  asPrivate: boolean;
  setPrivate: (on: boolean) => void;
}) {
  const { g, spotsText, spotsMin, spotsMax, counted, asPrivate } = props;
  const price = groupPriceFor(g.pricePerPersonCents, counted, asPrivate ? g.privateGroupPriceCents : null);
  const money = moneyFormatter(intlOf(props.locale), props.money);
  const typed = Number(spotsText);
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm" data-session-length>
        {g.texts.session}
      </p>
      <div className="field">
        <label className="field-label" htmlFor="dt-spots">
          {g.texts.spots}
        </label>
        <div className="flex items-center gap-2">
          <button type="button" className="btn btn-secondary h-11 w-11 px-0 text-lg" aria-label={g.texts.fewer} aria-controls="dt-spots" disabled={spotsText !== "" && typed <= spotsMin} onClick={() => props.step(-1)}>
            −
          </button>
          <input
            id="dt-spots"
            className="input w-20 text-center"
            type="number"
            inputMode="numeric"
            min={spotsMin}
            max={spotsMax}
            step={1}
            value={spotsText}
            aria-invalid={props.spotsOk ? undefined : true}
            aria-describedby="dt-spots-hint"
            onChange={(e) => props.setSpotsText(e.target.value)}
          />
          <button type="button" className="btn btn-secondary h-11 w-11 px-0 text-lg" aria-label={g.texts.more} aria-controls="dt-spots" disabled={spotsText !== "" && typed >= spotsMax} onClick={() => props.step(1)}>
            +
          </button>
        </div>
        <span id="dt-spots-hint" className="text-xs text-muted">
          {asPrivate ? g.texts.privateHint : g.texts.hint}
        </span>
      </div>
      {g.privateGroupPriceCents !== null ? (
        <div className="flex flex-col gap-1">
          <label className="flex items-start gap-2 text-sm">
            <input type="checkbox" className="mt-0.5 h-5 w-5 shrink-0" checked={asPrivate} aria-describedby="dt-private-hint" onChange={(e) => props.setPrivate(e.target.checked)} />
            <span>{g.texts.privateGroup}</span>
          </label>
          <span id="dt-private-hint" className="pl-7 text-xs text-muted">
            {g.texts.privateGroupHint}
          </span>
        </div>
      ) : null}
      <dl className="flex flex-col gap-1 rounded-xl bg-sunken px-3 py-2 text-sm" aria-live="polite" data-group-total>
        <div className="flex justify-between gap-3">
          <dt>{asPrivate ? g.texts.privateLabel : (g.subtotalLabels[counted] ?? "")}</dt>
          <dd data-total-subtotal>{money(price.subtotalCents)}</dd>
        </div>
        <div className="flex justify-between gap-3">
          <dt>{g.texts.serviceFee}</dt>
          <dd data-total-fee>{money(price.serviceFeeCents)}</dd>
        </div>
        <div className="flex justify-between gap-3 font-semibold">
          <dt>{g.texts.total}</dt>
          <dd data-total-total>{money(price.totalCents)}</dd>
        </div>
      </dl>
    </div>
  );
}

// Its formatters are made before the first render, in a task of their own (islands/mount.ts).
export const mount = mountWith(DateTimePicker, (p) => void formattersFor(p.locale));
