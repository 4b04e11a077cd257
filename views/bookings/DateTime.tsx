import { zonePlace } from "../../lib/places";
import { FLOWS, sessionLengthOf } from "../../src/bookings/times";
import type { DateTimeData } from "../../src/bookings/queries";
import { startTaken } from "../../shared/availability";
import type { View } from "../../src/shell/view";
import { FormAlert, ScreenHeader, SelectField } from "../components/Fields";
import { Island } from "../components/Island";
import { AppLayout } from "../layouts/AppLayout";
import { formatMoney, minorUnits } from "../../lib/money";
import { ActivitySummary, durationLabel, policyName, formatHour, formatShortDate, hoursText, spotsLeftText, spotsLeftTexts, SpotsFields } from "./Parts";

const rules = FLOWS.datetime;
const hours = Array.from({ length: rules.lastHour - rules.firstHour + 1 }, (_, i) => rules.firstHour + i);
const hh = (h: number) => `${String(h).padStart(2, "0")}:00`;

/** A start hour is taken when it is past, or the shortest booking from it meets a busy or closed time. */
const taken = (data: Pick<DateTimeData, "busy" | "now" | "shortest">, date: string, hour: number) => startTaken(data.busy, data.now, date, hour, data.shortest);

/**
 * /booking/{id}/date-time: a date, a start time and a duration (spec "Date-time screen"). A group
 * session (`data.seats`) has one length, shown and sent as the duration; each start says its
 * spots left on the date (a full one is not offered), then come the spots, the private group when
 * the host offers it, and the total. The island and the form it replaces post the same fields.
 */
export function DateTimeScreen({ view, data }: { view: View; data: DateTimeData }) {
  const { t } = view;
  const a = data.activity;
  const date = data.selected.date;
  const action = `/booking/${a.id}/date-time`;
  const seats = data.seats;
  const session = seats ? sessionLengthOf(a) : null;
  const texts = {
    date: t("booking.chooseDate"),
    time: t("booking.chooseTime"),
    duration: t("booking.chooseDuration"),
    greyed: t("booking.greyedOut"),
    continue: t("booking.continueToPayment"),
    prevMonth: t("booking.prevMonth"),
    nextMonth: t("booking.nextMonth"),
    total: t("booking.totalLine"),
    taken: t("booking.taken"),
    browserZone: t("booking.browserZone", { zone: zonePlace(data.zone) }),
  };
  /** A start on the chosen date: taken (past, busy, closed), full, or open with its spots left. */
  const startOption = (h: number) => {
    if (!date) return { value: hh(h), label: formatHour(view, hh(h)), selected: data.selected.time === hh(h), disabled: false };
    const left = seats ? seats.spots[date]?.[h] : undefined;
    const off = seats ? !left : taken(data, date, h);
    const note = seats && left !== undefined ? ` · ${spotsLeftText(view, left)}` : off ? ` (${t("booking.taken")})` : "";
    return { value: hh(h), label: `${formatHour(view, hh(h))}${note}`, selected: data.selected.time === hh(h), disabled: off };
  };
  const fallback = (
    <form method="post" action={action} class="flex flex-col gap-4" data-datetime-fallback>
      <input type="hidden" name="_csrf" value={view.csrf} />
      <div class="field">
        <label class="field-label" for="bk-date" safe>
          {t("booking.chooseDate")}
        </label>
        <input id="bk-date" class="input" type="date" name="date" value={date} min={data.dates[0]} max={data.dates[data.dates.length - 1]} required />
        <button type="submit" formmethod="get" formaction={action} formnovalidate class="btn btn-ghost mt-1 self-start text-sm" safe>
          {t("booking.showTimes")}
        </button>
      </div>
      <SelectField id="bk-time" name="time" label={t("booking.chooseTime")} placeholder={t("booking.pickTime")} options={hours.map(startOption)} />
      {seats && session ? (
        <>
          <p class="text-sm" data-session-length>
            <span class="text-muted" safe>{`${t("booking.sessionLengthLabel")}: `}</span>
            <span safe>{hoursText(view, session)}</span>
          </p>
          <input type="hidden" name="duration" value={String(session / 60)} />
          <SpotsFields view={view} seats={seats} spots={data.selected.spots} privateGroup={data.selected.privateGroup} idPrefix="bk" currency={data.activity.currency} />
        </>
      ) : (
        <SelectField
          id="bk-duration"
          name="duration"
          label={t("booking.chooseDuration")}
          placeholder={t("booking.pickDuration")}
          options={rules.durations.map((m) => ({ value: String(m / 60), label: durationLabel(view, m), selected: data.selected.durationMinutes === m, disabled: m < data.minMinutes || m > data.maxMinutes }))}
        >
          <span class="text-xs text-muted" safe>
            {t("booking.greyedOut")}
          </span>
        </SelectField>
      )}
      <button type="submit" class="btn btn-primary w-full" safe>
        {t("booking.continueToPayment")}
      </button>
    </form>
  );
  const currency = data.activity.currency;
  const money = (c: number) => formatMoney(c, view.locale, { currency });
  // The group's part of the picker: its seats, and its words in the person's language.
  const group =
    seats && session
      ? {
          spots: seats.spots,
          capacity: seats.capacity,
          min: seats.min,
          max: seats.max,
          pricePerPersonCents: seats.pricePerPersonCents,
          privateGroupPriceCents: seats.privateGroupPriceCents,
          sessionMinutes: session,
          spotsLeftTexts: spotsLeftTexts(view, seats.capacity),
          subtotalLabels: Object.fromEntries(Array.from({ length: seats.capacity }, (_, i) => [i + 1, t("booking.spotsTimesPrice", { n: i + 1, price: money(seats.pricePerPersonCents) })])),
          texts: {
            spots: t("booking.spots"),
            fewer: t("booking.fewerSpots"),
            more: t("booking.moreSpots"),
            hint: t("booking.spotsHint", { min: seats.min, max: seats.max }),
            privateHint: t("booking.spotsHint", { min: 1, max: seats.capacity }),
            privateGroup: seats.privateGroupPriceCents === null ? "" : t("booking.privateGroupFrom", { price: money(seats.privateGroupPriceCents) }),
            privateGroupHint: t("booking.privateGroupHint"),
            privateLabel: t("booking.privateGroupBadge"),
            session: `${t("booking.sessionLengthLabel")}: ${hoursText(view, session)}`,
            serviceFee: t("booking.serviceFee"),
            total: t("booking.total"),
          },
        }
      : null;
  return (
    <AppLayout view={view} title={t("booking.dateTimeTitle")}>
      <>
        <ScreenHeader view={view} title={t("booking.dateTimeTitle")} back={`/activity/${a.id}`} />
        <div class="flex flex-col gap-4">
          <ActivitySummary view={view} activity={a} hostName={data.hostName} />
          <p class="rounded-xl bg-sunken px-3 py-2 text-sm" safe>
            {a.instantBooking ? t("booking.instantNote", { policy: policyName(view, a.cancellationPolicy) }) : t("booking.approvalNote")}
          </p>
          <p class="text-sm text-muted" data-zone-note safe>
            {data.viewerZoneDiffers ? t("booking.zoneDiffers", { city: a.city, zone: zonePlace(data.zone) }) : t("booking.zoneNote", { city: a.city })}
          </p>
          <FormAlert body={data.error} />
          {date && data.selected.time && data.selected.durationMinutes ? (
            <p class="sr-only" safe>{`${formatShortDate(view, date)} ${formatHour(view, data.selected.time)}`}</p>
          ) : (
            ""
          )}
          <Island
            name="DateTimePicker"
            props={{
              action,
              csrf: view.csrf,
              locale: view.locale,
              zone: data.zone,
              dates: data.dates,
              busy: data.busy,
              now: data.now,
              firstHour: rules.firstHour,
              lastHour: rules.lastHour,
              durations: rules.durations,
              minMinutes: data.minMinutes,
              shortest: data.shortest,
              maxMinutes: data.maxMinutes,
              hourlyRateCents: a.hourlyRateCents,
              // The activity's currency and its minor unit: the picker's totals are written in it.
              money: { currency: currency.toUpperCase(), digits: minorUnits(currency) },
              selected: data.selected,
              group,
              // Each duration as the total line says it ("1.5 hours", "1,5 heure"): counted by the server's catalogue.
              durationTexts: Object.fromEntries([...rules.durations, ...(session ? [session] : [])].map((m) => [m, hoursText(view, m)])),
              texts,
            }}
          >
            {fallback}
          </Island>
        </div>
      </>
    </AppLayout>
  );
}
