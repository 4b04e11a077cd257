import { FLOWS } from "../../src/bookings/times";
import type { DateTimeData } from "../../src/bookings/queries";
import { startTaken } from "../../shared/availability";
import type { View } from "../../src/shell/view";
import { FormAlert, ScreenHeader, SelectField } from "../components/Fields";
import { Island } from "../components/Island";
import { AppLayout } from "../layouts/AppLayout";
import { ActivitySummary, durationLabel, formatHour, formatShortDate, hoursText } from "./Parts";

const rules = FLOWS.datetime;
const hours = Array.from({ length: rules.lastHour - rules.firstHour + 1 }, (_, i) => rules.firstHour + i);
const hh = (h: number) => `${String(h).padStart(2, "0")}:00`;

/** A start hour is taken when it is past, or the shortest booking from it meets a busy or closed time. */
const taken = (data: Pick<DateTimeData, "busy" | "now" | "shortest">, date: string, hour: number) => startTaken(data.busy, data.now, date, hour, data.shortest);

/** /booking/{id}/date-time: a date, a start time and a duration (spec "Date-time screen"). */
export function DateTimeScreen({ view, data }: { view: View; data: DateTimeData }) {
  const { t } = view;
  const a = data.activity;
  const date = data.selected.date;
  const action = `/booking/${a.id}/date-time`;
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
    browserZone: t("booking.browserZone", { zone: data.zone }),
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
      <SelectField
        id="bk-time"
        name="time"
        label={t("booking.chooseTime")}
        placeholder={t("booking.pickTime")}
        options={hours.map((h) => {
          const off = date ? taken(data, date, h) : false;
          return { value: hh(h), label: `${formatHour(view, hh(h))}${off ? ` (${t("booking.taken")})` : ""}`, selected: data.selected.time === hh(h), disabled: off };
        })}
      />
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
      <button type="submit" class="btn btn-primary w-full" safe>
        {t("booking.continueToPayment")}
      </button>
    </form>
  );
  return (
    <AppLayout view={view} title={t("booking.dateTimeTitle")}>
      <>
        <ScreenHeader view={view} title={t("booking.dateTimeTitle")} back={`/activity/${a.id}`} />
        <div class="flex flex-col gap-4">
          <ActivitySummary view={view} activity={a} hostName={data.hostName} />
          <p class="rounded-xl bg-sunken px-3 py-2 text-sm" safe>
            {t("booking.approvalNote")}
          </p>
          <p class="text-sm text-muted" data-zone-note safe>
            {data.viewerZoneDiffers ? t("booking.zoneDiffers", { city: a.city, zone: data.zone }) : t("booking.zoneNote", { city: a.city })}
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
              selected: data.selected,
              // Each duration as the total line says it ("1.5 hours", "1,5 heure"): counted by the server's catalogue.
              durationTexts: Object.fromEntries(rules.durations.map((m) => [m, hoursText(view, m)])),
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
