import { ratingNumber } from "../../lib/labels";
import { cachedFormatter } from "../../lib/intl";
import type { Activity } from "../../db/schema";
import { durationAllowed, FLOWS, sessionLengthOf } from "../../src/bookings/times";
import type { DialogRules, DialogTimes } from "../../src/bookings/queries";
import type { RequestChoice } from "../../src/bookings/input";
import { decimalFromCents, formatMoney } from "../../lib/money";
import type { Price } from "../../shared/pricing";
import type { KeptView, View } from "../../src/shell/view";
import { FormAlert, ScreenHeader, SelectField } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { ActivitySummary, CancellationPolicy, formatHour, policyName, formatLongDate, hoursText, spotsLeftText, spotsLeftTexts, SpotsFields, spotsText, TestModeNote } from "./Parts";
import { instantOf } from "../../lib/time";
import { zoneOfCity } from "../../lib/places";
import { MAX_BOOKING_MESSAGE } from "../../shared/limits";

export interface RequestSummary {
  activity: Activity;
  hostName: string;
  hostRating: { average: number | null; count: number };
}

const rules = FLOWS.dialog;

/** The dialog's words: a request to the host, or, for an activity that books instantly (docs/decisions/0037), a booking. */
const dialogTitleOf = (activity: Pick<Activity, "instantBooking">) => (activity.instantBooking ? "booking.dialogTitleInstant" : "booking.dialogTitle");
const dialogContinueOf = (activity: Pick<Activity, "instantBooking">) => (activity.instantBooking ? "booking.dialogContinueInstant" : "booking.dialogContinue");
const hh = (h: number) => `${String(h).padStart(2, "0")}:00`;

const dayFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "long", day: "numeric", month: "long", timeZone: "UTC" }));

/** "Today", "Tomorrow", then the weekday and date in the interface language. */
function dateLabel(view: KeptView, date: string, today: string) {
  const [y = 2000, m = 1, d = 1] = date.split("-").map(Number);
  const at = Date.UTC(y, m - 1, d);
  const [ty = 2000, tm = 1, td = 1] = today.split("-").map(Number);
  const days = Math.round((at - Date.UTC(ty, tm - 1, td)) / 86_400_000);
  if (days === 0) return view.t("booking.today");
  if (days === 1) return view.t("booking.tomorrow");
  return dayFormat(view.locale).format(at);
}

/**
 * The details step's fields (message, date, start, duration), shared by the dialog and the
 * payment step's way back. Only dates with an open start are offered, and only hours open on
 * one of them; each date says its own open hours (`data-hours`), which the page script uses to
 * grey out the others once a date is chosen. The server checks the choice whatever is sent.
 *
 * A group session (`open.seats`) has one length, shown as text and sent as `hours`; each start
 * says its spots left on the date chosen ("3 spots left", "Full"): each date lists them
 * (`data-spots`), which the page script writes into the start's label once a date is chosen,
 * and the server writes them for a date already chosen. Then come the spots and the total.
 */
function DetailsFields({ view, activity, choice, open }: { view: KeptView; activity: DialogRules; choice: RequestChoice; open: DialogTimes }) {
  const { t } = view;
  const seats = open.seats;
  const session = seats ? sessionLengthOf(activity) : null;
  const offered = new Set(open.dates.flatMap((d) => open.hours[d] ?? []));
  // A start full on some date is still listed: it says so there.
  if (seats) for (const byHour of Object.values(seats.spots)) for (const h of Object.keys(byHour)) offered.add(Number(h));
  const hours = Array.from({ length: rules.lastHour - rules.firstHour + 1 }, (_, i) => rules.firstHour + i).filter((h) => offered.has(h) || choice.time === hh(h));
  const leftOn = seats && choice.date ? (seats.spots[choice.date] ?? {}) : null;
  // The longest booking from the start chosen, when one is: longer durations are greyed out.
  const chosenHour = /^(\d{2}):00/.exec(choice.time)?.[1];
  const fitsChosen = (choice.date && chosenHour !== undefined ? open.longest[choice.date]?.[Number(chosenHour)] : undefined) ?? Infinity;
  const timeOption = (h: number) => {
    const label = formatHour(view, hh(h));
    const left = leftOn?.[h];
    return {
      value: hh(h),
      label: left === undefined ? label : `${label} · ${spotsLeftText(view, left)}`,
      selected: choice.time === hh(h),
      disabled: left === 0,
      data: seats ? { hour: String(h), label } : ({ hour: String(h) } as Record<string, string>),
    };
  };
  const startField = (
    <SelectField
      id="rq-time"
      name="proposedTime"
      label={t("booking.startLabel")}
      placeholder={t("booking.pickTime")}
      options={hours.map(timeOption)}
      data={seats ? { "spots-texts": JSON.stringify(spotsLeftTexts(view, seats.capacity)) } : { "start-of": "rq-date" }}
    />
  );
  return (
    <>
      <div class="field">
        <label class="field-label" for="rq-message" safe>
          {t("booking.messageLabel")}
        </label>
        {/* Required, but checked by the server, whose "Message required" is in the page's language (the browser's own check speaks the browser's). */}
        <textarea id="rq-message" class="input min-h-24" name="message" maxlength={String(MAX_BOOKING_MESSAGE)} aria-required="true" placeholder={t("booking.messagePlaceholder")} safe>
          {choice.message}
        </textarea>
      </div>
      <SelectField
        id="rq-date"
        name="proposedDate"
        label={t("booking.dateLabel")}
        placeholder={t("booking.pickDate")}
        options={open.dates.map((d) => ({
          value: d,
          label: dateLabel(view, d, open.today),
          selected: choice.date === d,
          data: { hours: (open.hours[d] ?? []).join(" "), ...(seats ? { spots: JSON.stringify(seats.spots[d] ?? {}) } : { longest: JSON.stringify(open.longest[d] ?? {}) }) },
        }))}
        data={seats ? { "hours-for": "rq-time" } : { "hours-for": "rq-time", "durations-for": "rq-hours" }}
      >
        {open.dates.length ? (
          ""
        ) : (
          <span class="text-sm text-muted" safe>
            {t("booking.noOpenDates")}
          </span>
        )}
      </SelectField>
      {seats && session ? (
        <>
          {startField}
          <p class="text-sm" data-session-length>
            <span class="text-muted" safe>{`${t("booking.sessionLengthLabel")}: `}</span>
            <span safe>{hoursText(view, session)}</span>
          </p>
          <input type="hidden" name="hours" value={String(session / 60)} />
          <SpotsFields view={view} seats={seats} spots={choice.spots} privateGroup={choice.privateGroup} idPrefix="rq" currency={activity.currency} />
        </>
      ) : (
        // One field per line on a phone: "Choose a start time" does not fit half the dialog's width.
        <div class="grid gap-3 min-[480px]:grid-cols-2">
          {startField}
          <SelectField
            id="rq-hours"
            name="hours"
            label={t("booking.duration")}
            options={rules.durations.map((m) => {
              const allowed = durationAllowed(activity, m);
              const selected = choice.hours * 60 === m;
              // The duration chosen stays choosable (a disabled option is not sent): the server says why it does not fit.
              return { value: String(m / 60), label: hoursText(view, m), selected, disabled: !allowed || (m > fitsChosen && !selected), data: allowed ? { minutes: String(m) } : undefined };
            })}
          />
        </div>
      )}
    </>
  );
}

/**
 * The dialog's details fields as it first shows them, nothing chosen yet: made of the activity's
 * dialog rules and open times alone, so that activities alike share them (views/activities/Detail.tsx
 * keeps them, rendered once, from the kept view).
 */
export function DialogFields({ view, activity, open }: { view: KeptView; activity: DialogRules; open: DialogTimes }) {
  const firstAllowed = sessionLengthOf(activity) ?? rules.durations.find((m) => durationAllowed(activity, m)) ?? 60;
  return <DetailsFields view={view} activity={activity} choice={{ message: "", date: "", time: "", hours: firstAllowed / 60, spots: open.seats?.min ?? 1, privateGroup: false }} open={open} />;
}

/**
 * The booking dialog on the activity page (spec "Booking dialog"), as a disclosure that works
 * without JavaScript: the details step posts to the server, which answers with the payment step.
 * Its fields are `DialogFields`, which the page hands in.
 */
export function RequestDialog({ view, activity, fields }: { view: View; activity: Activity; fields: JSX.Element }) {
  const { t } = view;
  return (
    <details class="card mt-6 mx-auto w-full max-w-[425px] p-4" data-request-dialog>
      {/* 44 px tall to the tap (WCAG 2.5.5) without moving the card's text: padding taken back by margins. */}
      <summary class="-my-2.5 cursor-pointer py-2.5 font-semibold" safe>
        {t(dialogTitleOf(activity))}
      </summary>
      <form method="post" action={`/activity/${activity.id}/request`} class="mt-3 flex flex-col gap-3">
        <input type="hidden" name="_csrf" value={view.csrf} />
        {fields as "safe"}
        <button type="submit" class="btn btn-primary w-full" safe>
          {t(dialogContinueOf(activity))}
        </button>
      </form>
    </details>
  );
}

/** The dialog's payment step: summary, the host's real rating, the hold note, Retour, and pay. */
export function RequestPaymentStep({
  view,
  summary,
  choice,
  price,
  error,
  testMode,
  open,
}: {
  view: View;
  summary: RequestSummary;
  choice: RequestChoice;
  price?: Price;
  error?: { title: string; body: string };
  testMode: boolean;
  open: DialogTimes;
}) {
  const { t } = view;
  const a = summary.activity;
  // A group booking's price per person, as the server priced it (`open.seats`, read with the price).
  const perPerson = open.seats ? open.seats.pricePerPersonCents : null;
  // The chosen start in the activity's zone: the policy's deadlines are told from it.
  const zone = zoneOfCity(a.city);
  const startsAt = instantOf(`${choice.date}T${choice.time}`, zone);
  const rating = summary.hostRating.average === null ? t("browse.new") : t("booking.rating", { average: ratingNumber(summary.hostRating.average, view.locale), count: summary.hostRating.count });
  return (
    <AppLayout view={view} title={t(dialogTitleOf(a))}>
      <div class="mx-auto w-full max-w-[425px]">
        <ScreenHeader view={view} title={t(dialogTitleOf(a))} back={`/activity/${a.id}`} />
        <div class="flex flex-col gap-4">
          <ActivitySummary view={view} activity={a} hostName={summary.hostName}>
            <p class="text-sm" data-host-rating safe>
              {`★ ${rating}`}
            </p>
          </ActivitySummary>
          <FormAlert title={error?.title} body={error?.body} focus />
          {price ? (
            <>
              <section class="card p-4 text-sm">
                <p safe>{`${formatLongDate(view, choice.date)} · ${formatHour(view, choice.time)} · ${hoursText(view, choice.hours * 60)}`}</p>
                <p class="mt-2 whitespace-pre-line text-muted" safe>
                  {choice.message}
                </p>
                <dl class="mt-3 flex flex-col gap-1">
                  {perPerson !== null ? (
                    <>
                      <div class="flex justify-between gap-3" data-summary-spots>
                        <dt safe>{t("booking.spots")}</dt>
                        <dd class="text-right" safe>
                          {spotsText(view, choice)}
                        </dd>
                      </div>
                      <div class="flex justify-between gap-3">
                        <dt safe>{t("booking.pricePerPersonLabel")}</dt>
                        <dd safe>{formatMoney(perPerson, view.locale, { currency: a.currency })}</dd>
                      </div>
                    </>
                  ) : (
                    ""
                  )}
                  <div class="flex justify-between">
                    <dt safe>{t("booking.subtotal")}</dt>
                    <dd safe>{formatMoney(price.subtotalCents, view.locale, { currency: a.currency })}</dd>
                  </div>
                  <div class="flex justify-between">
                    <dt safe>{t("booking.serviceFee")}</dt>
                    <dd safe>{formatMoney(price.serviceFeeCents, view.locale, { currency: a.currency })}</dd>
                  </div>
                  <div class="flex justify-between font-semibold">
                    <dt safe>{t("booking.total")}</dt>
                    <dd safe>{formatMoney(price.totalCents, view.locale, { currency: a.currency })}</dd>
                  </div>
                </dl>
              </section>
              <p class="rounded-xl bg-sunken px-3 py-2 text-sm" safe>
                {a.instantBooking ? t("booking.instantNote", { policy: policyName(view, a.cancellationPolicy) }) : t("booking.holdNote")}
              </p>
              {startsAt === null ? "" : <CancellationPolicy view={view} policy={a.cancellationPolicy} startsAt={startsAt} timeZone={zone} instant={a.instantBooking} />}
              {testMode ? <TestModeNote view={view} /> : ""}
              <form method="post" action={`/activity/${a.id}/request/pay`} class="flex flex-col gap-2">
                <input type="hidden" name="_csrf" value={view.csrf} />
                <input type="hidden" name="message" value={choice.message} />
                <input type="hidden" name="proposedDate" value={choice.date} />
                <input type="hidden" name="proposedTime" value={choice.time} />
                <input type="hidden" name="hours" value={String(choice.hours)} />
                {open.seats ? (
                  <>
                    <input type="hidden" name="spots" value={String(choice.spots)} />
                    <input type="hidden" name="privateGroup" value={String(choice.privateGroup)} />
                  </>
                ) : (
                  ""
                )}
                <input type="hidden" name="amount" value={decimalFromCents(price.totalCents, a.currency)} />
                <button type="submit" class="btn btn-primary w-full" data-busy-text={t("booking.processing")} safe>
                  {t(a.instantBooking ? "booking.bookAndPayAmount" : "booking.payAmount", { amount: formatMoney(price.totalCents, view.locale, { currency: a.currency }) })}
                </button>
              </form>
            </>
          ) : (
            ""
          )}
          <form method="post" action={`/activity/${a.id}/request`} class="flex flex-col gap-3">
            <input type="hidden" name="_csrf" value={view.csrf} />
            {price ? (
              <details>
                <summary class="btn btn-ghost w-full cursor-pointer" safe>
                  {t("booking.back")}
                </summary>
                <div class="mt-3 flex flex-col gap-3">
                  <DetailsFields view={view} activity={a} choice={choice} open={open} />
                  <button type="submit" class="btn btn-secondary w-full" safe>
                    {t(dialogContinueOf(a))}
                  </button>
                </div>
              </details>
            ) : (
              <>
                <DetailsFields view={view} activity={a} choice={choice} open={open} />
                <button type="submit" class="btn btn-primary w-full" safe>
                  {t(dialogContinueOf(a))}
                </button>
              </>
            )}
          </form>
        </div>
      </div>
    </AppLayout>
  );
}
