import { zonePlace } from "../../lib/places";
import type { Activity, HostBlock } from "../../db/schema";
import type { View } from "../../src/shell/view";
import { cachedFormatter } from "../../lib/intl";
import { zonedAt } from "../../lib/time";
import { clockText, rangesText } from "../../shared/availability";
import { FormAlert, ScreenHeader, TextField } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { BusyCalendarCard, type BusyCalendarProps } from "./BusyCalendarCard";
import { CalendarFeedCard } from "./CalendarFeedCard";
import { MAX_BLOCK_NOTE } from "../../shared/limits";

export interface AvailabilityData {
  zone: string;
  activities: Activity[];
  blocks: HostBlock[];
  /** The add form as it was sent, with the reason it was refused. */
  form?: { values: Record<string, string>; error: string; field?: string };
  /** The private calendar feed and the outside busy calendar. */
  feed: { url: string | null };
  busyCalendar: BusyCalendarProps;
}

const weekdayFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "short", timeZone: "UTC" }));
const dateFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }));

/** Monday 0 … Sunday 6 as the interface language shortens it. */
const weekdayName = (view: View, day: number) => weekdayFormat(view.locale).format(Date.UTC(2024, 0, 1 + day));

/** A block as the host reads it, in the wall clock it was given in: "Sat 5 Dec 2026, all day" or "… 14:00–16:00". */
export function blockText(view: View, block: HostBlock) {
  const start = zonedAt(block.startsAt, block.timeZone);
  const end = zonedAt(block.endsAt, block.timeZone);
  const day = (d: Temporal.PlainDate) => dateFormat(view.locale).format(Date.UTC(d.year, d.month - 1, d.day));
  if (block.allDay) {
    const last = end.toPlainDate().subtract({ days: 1 });
    const first = start.toPlainDate();
    return first.equals(last) ? `${day(first)}, ${view.t("availability.allDay")}` : `${day(first)} – ${day(last)}`;
  }
  const to = end.toPlainDate().equals(start.toPlainDate()) ? end.hour * 60 + end.minute : 24 * 60;
  return `${day(start.toPlainDate())}, ${clockText(start.hour * 60 + start.minute, view.locale)}–${clockText(to, view.locale)}`;
}

/** One activity's week as one line per day with hours ("Sat 09:00–12:00"), or the default. */
function WeekSummary({ view, activity }: { view: View; activity: Activity }) {
  const { t } = view;
  if (!activity.weeklyHours) return <p class="text-sm" safe>{t("availability.weeklyAny")}</p>;
  return (
    <ul class="grid grid-cols-[auto_1fr] gap-x-3 text-sm">
      {activity.weeklyHours.map((ranges, day) => (
        <li class="contents">
          <span class="text-muted" safe>
            {weekdayName(view, day)}
          </span>
          <span safe>{ranges.length ? rangesText(ranges, view.locale) : t("availability.weeklyClosed")}</span>
        </li>
      ))}
    </ul>
  );
}

/** /host/availability: each activity's week, the host's days off and blocked times, and their calendars. */
export function AvailabilityScreen({ view, data }: { view: View; data: AvailabilityData }) {
  const { t } = view;
  const values = data.form?.values ?? {};
  const fieldError = (name: string) => (data.form?.field === name ? data.form.error : undefined);
  const kind = values.kind === "time" ? "time" : "day";
  return (
    <AppLayout view={view} title={t("availability.title")}>
      <>
        <ScreenHeader view={view} title={t("availability.title")} back="/host-dashboard" />
        <p class="mb-4 text-sm text-muted" safe>
          {t("availability.intro")}
        </p>

        <section class="mt-2" aria-labelledby="weekly-title">
          <h2 id="weekly-title" class="mb-2 text-lg font-semibold" safe>
            {t("availability.weeklyTitle")}
          </h2>
          {data.activities.length ? (
            <ul class="flex flex-col gap-3">
              {data.activities.map((a) => (
                <li class="card p-3" data-activity-hours={a.id}>
                  <div class="mb-2 flex items-start justify-between gap-2">
                    <h3 class="min-w-0 font-semibold" safe>
                      {a.title}
                    </h3>
                    <a href={`/host/availability/activities/${a.id}`} class="btn btn-ghost min-h-11 shrink-0 px-2.5 text-sm" aria-label={t("availability.editHours", { title: a.title })} safe>
                      {t("availability.editHoursShort")}
                    </a>
                  </div>
                  <WeekSummary view={view} activity={a} />
                  <p class="mt-2 text-xs text-muted" safe>
                    {[t("availability.notice", { hours: Math.round((a.noticeMinutes / 60) * 10) / 10 }), t("availability.horizon", { days: a.horizonDays }), a.instantBooking ? t("availability.instant") : ""].filter(Boolean).join(" · ")}
                  </p>
                </li>
              ))}
            </ul>
          ) : (
            <p class="card p-4 text-sm text-muted" safe>
              {t("availability.noActivities")}
            </p>
          )}
        </section>

        <section class="mt-6" aria-labelledby="blocks-title">
          <h2 id="blocks-title" class="mb-1 text-lg font-semibold" safe>
            {t("availability.blocksTitle")}
          </h2>
          <p class="mb-3 text-sm text-muted" safe>
            {t("availability.blocksHint", { zone: zonePlace(data.zone) })}
          </p>
          {data.blocks.length ? (
            <ul class="mb-4 flex flex-col gap-2" data-blocks>
              {data.blocks.map((b) => {
                const when = blockText(view, b);
                return (
                  <li class="card flex items-center justify-between gap-2 p-3" data-block={b.id}>
                    <span class="min-w-0">
                      <span class="block font-medium" safe>
                        {when}
                      </span>
                      {b.note ? (
                        <span class="block whitespace-pre-line text-sm text-muted" safe>
                          {b.note}
                        </span>
                      ) : (
                        ""
                      )}
                    </span>
                    <form method="post" action={`/host/availability/blocks/${b.id}/remove`}>
                      <input type="hidden" name="_csrf" value={view.csrf} />
                      <button type="submit" class="btn btn-ghost min-h-11 px-2.5 text-sm" aria-label={t("availability.removeNamed", { when })} safe>
                        {t("availability.remove")}
                      </button>
                    </form>
                  </li>
                );
              })}
            </ul>
          ) : (
            <p class="mb-4 text-sm text-muted" data-blocks-empty safe>
              {t("availability.blocksEmpty")}
            </p>
          )}

          <form method="post" action="/host/availability/blocks" class="card flex flex-col gap-3 p-4" data-block-form>
            <input type="hidden" name="_csrf" value={view.csrf} />
            <FormAlert body={data.form && !data.form.field ? data.form.error : undefined} />
            <fieldset class="flex flex-wrap gap-4">
              <legend class="field-label mb-1" safe>
                {t("availability.kind")}
              </legend>
              <label class="inline-flex min-h-11 items-center gap-2">
                <input type="radio" name="kind" value="day" checked={kind === "day"} />
                <span safe>{t("availability.kindDay")}</span>
              </label>
              <label class="inline-flex min-h-11 items-center gap-2">
                <input type="radio" name="kind" value="time" checked={kind === "time"} />
                <span safe>{t("availability.kindTime")}</span>
              </label>
            </fieldset>
            {/* A date field needs about 170 px to show its whole date: one per line on a phone. */}
            <div class="grid gap-3 min-[480px]:grid-cols-2">
              <TextField name="date" type="date" label={t("availability.date")} value={values.date} error={fieldError("date")} required />
              <TextField name="endDate" type="date" label={t("availability.endDate")} value={values.endDate} error={fieldError("endDate")} />
            </div>
            <div class="grid grid-cols-2 gap-3">
              <TextField name="from" type="time" label={t("availability.from")} value={values.from} error={fieldError("from")} attrs={{ step: "1800" }} />
              <TextField name="to" type="time" label={t("availability.to")} value={values.to} error={fieldError("to")} attrs={{ step: "1800" }} />
            </div>
            <TextField name="note" label={t("availability.note")} value={values.note} maxlength={MAX_BLOCK_NOTE} />
            <button type="submit" class="btn btn-primary w-full" safe>
              {t("availability.addBlock")}
            </button>
          </form>
        </section>

        <div class="mt-6 flex flex-col gap-4">
          <BusyCalendarCard view={view} busyCalendar={data.busyCalendar} />
          <CalendarFeedCard view={view} feed={data.feed} />
        </div>
      </>
    </AppLayout>
  );
}
