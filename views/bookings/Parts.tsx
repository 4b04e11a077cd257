import type { Activity, CancellationPolicy as Policy } from "../../db/schema";
import { refundWindows } from "../../src/bookings/policies";
import { localOf, parseLocal } from "../../lib/time";
import { categoryPhoto } from "../../src/activities/categories";
import { decimalFromCents, formatMoney, minorUnits } from "../../lib/money";
import { cachedFormatter, intlLocale } from "../../lib/intl";
import { groupPriceFor, type Price } from "../../shared/pricing";
import type { GroupTotalConfig, SeatsOffer } from "../../shared/seats";
import type { View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { FormAlert } from "../components/Fields";
import { Island } from "../components/Island";

/** Formatters made once per language (building one costs far more than using it). */
const hourFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { hour: "numeric", minute: "2-digit", hour12: !l.startsWith("fr"), timeZone: "UTC" }));
const longDateFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "long", year: "numeric", month: "long", day: "numeric", timeZone: "UTC" }));
const shortDateFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "short", month: "short", day: "numeric", timeZone: "UTC" }));
const deadlineFormat = cachedFormatter((l) => new Intl.DateTimeFormat(l, { weekday: "short", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", hour12: !l.startsWith("fr"), timeZone: "UTC" }));

/**
 * An instant as the wall clock of the activity's zone, with its weekday: "Tue, Mar 3, 10:00 AM" /
 * "mar. 3 mars, 10:00" (a refund's deadline, read where the activity takes place).
 */
export function formatDeadline(view: Pick<View, "locale">, epochMs: number, timeZone: string) {
  const plain = parseLocal(localOf(epochMs, timeZone))!;
  return deadlineFormat(view.locale).format(plain.toZonedDateTime("UTC").epochMilliseconds);
}

/** 14 → "2:00 PM" (English) or "14:00" (French), as the spec shows start times. */
export function formatHour(view: Pick<View, "locale">, time: string) {
  const [h = 0, m = 0] = time.split(":").map(Number);
  return hourFormat(view.locale).format(Date.UTC(2000, 0, 1, h, m));
}

/** "2026-03-02" → "Monday, March 2, 2026". */
export function formatLongDate(view: View, date: string) {
  const [y = 2000, mo = 1, d = 1] = date.split("-").map(Number);
  return longDateFormat(view.locale).format(Date.UTC(y, mo - 1, d));
}

/** "2026-03-02" → "Mon, Mar 2". */
export function formatShortDate(view: View, date: string) {
  const [y = 2000, mo = 1, d = 1] = date.split("-").map(Number);
  return shortDateFormat(view.locale).format(Date.UTC(y, mo - 1, d));
}

/**
 * The date-time screen's short duration labels, written by the language's own unit format:
 * 30 → "30m" / "30min", 90 → "1.5h" / "1,5h". The picker island writes its chips the same way.
 */
export const durationLabel = (view: Pick<View, "locale">, minutes: number) =>
  new Intl.NumberFormat(view.locale, { style: "unit", unit: minutes < 60 ? "minute" : "hour", unitDisplay: "narrow" }).format(minutes < 60 ? minutes : minutes / 60);

/** 60 → "1 hour", 90 → "1.5 hours" / "1,5 heure": the language's plural rules and decimals. */
export function hoursText(view: Pick<View, "t">, minutes: number) {
  return view.t("booking.hoursCount", { n: minutes / 60 });
}

/** The activity at the top of the booking screens: photo, title, host, rate. */
export function ActivitySummary({ view, activity, hostName, children }: { view: View; activity: Activity; hostName: string; children?: JSX.Element }) {
  const photo = photoUrl(activity.photos[0] ?? categoryPhoto(activity.category), "thumb")!;
  return (
    <section class="card flex gap-3 p-3">
      <img src={photo} alt="" width="80" height="80" class="h-20 w-20 shrink-0 rounded-xl object-cover" />
      <div class="min-w-0 flex-1">
        <h2 class="font-semibold leading-snug" safe>
          {activity.title}
        </h2>
        <p class="text-sm text-muted" safe>
          {`${view.t("activity.hostedBy")} ${hostName}`}
        </p>
        <p class="text-sm font-medium" safe>
          {activity.format === "group" && activity.pricePerPersonCents
            ? view.t("booking.perPerson", { price: formatMoney(activity.pricePerPersonCents, view.locale, { currency: activity.currency }) })
            : `${formatMoney(activity.hourlyRateCents, view.locale, { currency: activity.currency, whole: true })}${view.t("browse.perHour")}`}
        </p>
        {(children ?? "") as "safe"}
      </div>
    </section>
  );
}

/** Said plainly on every screen that takes money while the test provider runs. */
export function TestModeNote({ view }: { view: View }) {
  return (
    <p class="rounded-xl border border-amber-400 bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-900/30 dark:text-amber-100" data-test-mode>
      <strong safe>{view.t("payments.testModeLabel")}</strong> <span safe>{view.t("payments.testModeBody")}</span>
    </p>
  );
}

export function PriceDetails({ view, price, currency }: { view: View; price: Price; currency: string }) {
  const money = (c: number) => formatMoney(c, view.locale, { currency });
  return (
    <section class="card p-4">
      <h2 class="mb-2 font-semibold" safe>
        {view.t("booking.priceDetails")}
      </h2>
      <dl class="flex flex-col gap-1 text-sm">
        <div class="flex justify-between">
          <dt safe>{view.t("booking.subtotal")}</dt>
          <dd safe>{money(price.subtotalCents)}</dd>
        </div>
        <div class="flex justify-between">
          <dt safe>{view.t("booking.serviceFee")}</dt>
          <dd safe>{money(price.serviceFeeCents)}</dd>
        </div>
        <div class="mt-1 flex justify-between border-t border-line pt-2 font-semibold">
          <dt safe>{view.t("booking.total")}</dt>
          <dd safe>{money(price.totalCents)}</dd>
        </div>
      </dl>
    </section>
  );
}

/** A policy's name inside a sentence ("the host's moderate policy"). */
export const policyName = (view: Pick<View, "t" | "locale">, policy: Policy) => view.t(`activity.policy.${policy}`).toLocaleLowerCase(view.locale);

/**
 * What a guest gets back if they cancel a booking starting at `startsAt`, window by window, with
 * each deadline in the activity's own time (docs/decisions/0050): "Full refund until Tue, Mar 3,
 * 10:00 AM", then "No refund after" the last one that ends before the start.
 */
export function RefundWindows({ view, policy, startsAt, timeZone }: { view: View; policy: Policy; startsAt: number; timeZone: string }) {
  const windows = refundWindows(policy, startsAt, timeZone);
  const last = windows.at(-1)!;
  return (
    <ul class="flex flex-col gap-0.5 font-medium" data-refund-windows>
      {windows.map((w) => (
        <li safe>{view.t(w.share === "full" ? "booking.refundFullUntil" : "booking.refundHalfUntil", { deadline: formatDeadline(view, w.until, timeZone) })}</li>
      ))}
      <li safe>{last.until < startsAt ? view.t("booking.refundNoneAfter", { deadline: formatDeadline(view, last.until, timeZone) }) : view.t("booking.refundNoneAtStart")}</li>
    </ul>
  );
}

/**
 * The cancellation policy before paying: the one the host chose for the activity (which the
 * booking keeps), its windows for the chosen start, and what every booking shares (the hold, a
 * withdrawal, the host's own cancellation).
 */
export function CancellationPolicy({ view, policy, startsAt, timeZone, instant = false }: { view: View; policy: Policy; startsAt: number; timeZone: string; instant?: boolean }) {
  // An activity that books instantly (docs/decisions/0037) charges the card when the guest pays:
  // there is no hold, no answer to wait for and no request to withdraw.
  const shared = instant ? ["booking.policyCharged", "booking.policyInstantCancel", "booking.policyHost"] as const : ["booking.policyHold", "booking.policyDecline", "booking.policyGuest", "booking.policyHost"] as const;
  return (
    <section class="card p-4 text-sm" data-cancellation-policy={policy}>
      <h2 class="mb-1 font-semibold" safe>
        {view.t("booking.policyTitle")}
      </h2>
      <p class="font-medium" safe>
        {view.t(`booking.policyIs.${policy}`)}
      </p>
      <RefundWindows view={view} policy={policy} startsAt={startsAt} timeZone={timeZone} />
      <ul class="mt-2 list-disc pl-5 text-muted">
        {shared.map((key) => (
          <li safe>{view.t(key)}</li>
        ))}
      </ul>
    </section>
  );
}

/** What Stripe's card form needs: the key, the intent's client secret, and where Stripe sends the browser back. */
export interface StripeFormData {
  publishableKey: string;
  clientSecret: string;
  returnUrl: string;
}

export interface CardState {
  values?: { cardNumber?: string; expiry?: string; cvc?: string };
  title?: string;
  error?: string;
  /**
   * With Stripe: its card form for this intent, or null when no intent could be prepared (the
   * error says why). Absent with the test provider, whose own card form is shown.
   */
  stripe?: StripeFormData | null;
}

/** The card form of whichever provider runs: the test provider's plain form, or Stripe's Payment Element. */
export function PaymentForm(props: { view: View; action: string; amountCents: number; currency: string; button: string; card: CardState; testMode: boolean }) {
  if (props.card.stripe === undefined) return <CardForm {...props} />;
  return <StripeCardForm {...props} stripe={props.card.stripe} />;
}

/**
 * Stripe's Payment Element, as an island (islands/StripePayment.tsx) that loads Stripe.js only on
 * the page that shows it. Once the card is held it posts the intent's id to `action`, the same
 * address the test card form posts to; the server reads the intent again from Stripe.
 */
function StripeCardForm({ view, action, amountCents, currency, card, testMode, stripe }: { view: View; action: string; amountCents: number; currency: string; card: CardState; testMode: boolean; stripe: StripeFormData | null }) {
  const { t } = view;
  const amountLabel = formatMoney(amountCents, view.locale, { currency });
  return (
    <div class="flex flex-col gap-3">
      {testMode ? <TestModeNote view={view} /> : ""}
      <FormAlert title={card.title ?? (card.error ? t("booking.paymentFailedTitle") : undefined)} body={card.error} focus />
      {stripe ? (
        <Island
          name="StripePayment"
          props={{
            publishableKey: stripe.publishableKey,
            clientSecret: stripe.clientSecret,
            returnUrl: stripe.returnUrl,
            amountLabel,
            locale: view.locale,
            finish: { action, csrf: view.csrf, amount: decimalFromCents(amountCents, currency) },
            texts: {
              pay: t("booking.confirmAndPayAmount", { amount: "{amount}" }),
              processing: t("booking.processing"),
              failed: t("booking.paymentFailedTitle"),
              loading: t("booking.cardFormLoading"),
              loadFailed: t("booking.cardFormFailed"),
            },
          }}
        >
          <>
            <p class="text-sm text-muted" safe>
              {t("booking.cardFormLoading")}
            </p>
            <noscript>
              <p class="text-sm" data-stripe-fallback safe>
                {t("booking.cardFormNeedsScript")}
              </p>
            </noscript>
          </>
        </Island>
      ) : (
        ""
      )}
    </div>
  );
}

/**
 * The test provider's card form: a plain form post (works without JavaScript). The amount the
 * guest saw travels with it, so a price that changed meanwhile is refused, not charged.
 */
export function CardForm({ view, action, amountCents, currency, button, card, testMode }: { view: View; action: string; amountCents: number; currency: string; button: string; card: CardState; testMode: boolean }) {
  const { t } = view;
  return (
    <form method="post" action={action} class="flex flex-col gap-3" data-card-form>
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="amount" value={decimalFromCents(amountCents, currency)} />
      {testMode ? <TestModeNote view={view} /> : ""}
      <FormAlert title={card.title ?? (card.error ? t("booking.paymentFailedTitle") : undefined)} body={card.error} focus />
      <div class="field">
        <label class="field-label" for="card-number" safe>
          {t("payments.cardNumber")}
        </label>
        <input id="card-number" class="input" name="cardNumber" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" maxlength="23" required value={card.values?.cardNumber ?? ""} />
      </div>
      <div class="grid grid-cols-2 gap-3">
        <div class="field">
          <label class="field-label" for="card-expiry" safe>
            {t("payments.expiry")}
          </label>
          <input id="card-expiry" class="input" name="expiry" inputmode="numeric" autocomplete="cc-exp" placeholder="MM/YY" maxlength="7" required value={card.values?.expiry ?? ""} />
        </div>
        <div class="field">
          <label class="field-label" for="card-cvc" safe>
            {t("payments.cvc")}
          </label>
          <input id="card-cvc" class="input" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" maxlength="4" required value={card.values?.cvc ?? ""} />
        </div>
      </div>
      <button type="submit" class="btn btn-primary w-full" data-busy-text={t("booking.processing")} safe>
        {button}
      </button>
    </form>
  );
}

/** A group booking's spots as the screens say them: "3 spots", or "Private group · 3 spots". */
export const spotsText = (view: Pick<View, "t">, b: { spots: number; privateGroup: boolean }) =>
  b.privateGroup ? `${view.t("booking.privateGroupBadge")} · ${view.t("booking.spotsCount", { n: b.spots })}` : view.t("booking.spotsCount", { n: b.spots });

/** A start's spots as the screens say them: "3 spots left", or "Full" at 0. */
export const spotsLeftText = (view: Pick<View, "t">, left: number) => (left > 0 ? view.t("booking.spotsLeftLabel", { n: left }) : view.t("booking.fullLabel"));

/** Every "N spots left" a session of `capacity` seats can show, 0 ("Full") to the capacity: for the scripts, which know no plural rules. */
export const spotsLeftTexts = (view: Pick<View, "t">, capacity: number) => Object.fromEntries(Array.from({ length: capacity + 1 }, (_, n) => [n, spotsLeftText(view, n)]));

/** Spots as a form field sends them: whole numbers as typed, anything else as nothing (the server said why). */
export const spotsValue = (spots: number) => (Number.isInteger(spots) && spots >= 0 ? String(spots) : "");

/**
 * A group session's choice on the booking forms (the dialog, the date-time screen without
 * JavaScript): the spots as a number input within the booking's bounds, with − and + once the
 * page script runs; the private group when the host offers it; and the total (spots × the price
 * per person, plus the service fee), which the script keeps current as the spots change. The
 * server prices and checks the choice again whatever is sent.
 */
export function SpotsFields({ view, seats, spots, privateGroup, idPrefix, currency }: { view: Pick<View, "t" | "locale">; seats: SeatsOffer; spots: number; privateGroup: boolean; idPrefix: string; currency: string }) {
  const { t } = view;
  const money = (c: number) => formatMoney(c, view.locale, { currency });
  const offered = seats.privateGroupPriceCents !== null;
  const shownPrivate = offered && privateGroup;
  const bounds = shownPrivate ? { min: 1, max: seats.capacity } : { min: seats.min, max: seats.max };
  const counted = Number.isInteger(spots) && spots >= 1 ? spots : bounds.min;
  const price = groupPriceFor(seats.pricePerPersonCents, counted, shownPrivate ? seats.privateGroupPriceCents : null);
  const config: GroupTotalConfig = {
    pricePerPersonCents: seats.pricePerPersonCents,
    privateGroupPriceCents: seats.privateGroupPriceCents,
    min: seats.min,
    max: seats.max,
    capacity: seats.capacity,
    locale: intlLocale(view.locale),
    money: { currency: currency.toUpperCase(), digits: minorUnits(currency) },
    subtotalLabels: Object.fromEntries(Array.from({ length: seats.capacity }, (_, i) => [i + 1, t("booking.spotsTimesPrice", { n: i + 1, price: money(seats.pricePerPersonCents) })])),
    privateLabel: t("booking.privateGroupBadge"),
    hint: t("booking.spotsHint", { min: seats.min, max: seats.max }),
    privateHint: t("booking.spotsHint", { min: 1, max: seats.capacity }),
  };
  const id = `${idPrefix}-spots`;
  return (
    <div class="flex flex-col gap-3" data-group-booking={JSON.stringify(config)}>
      <div class="field">
        <label class="field-label" for={id} safe>
          {t("booking.spots")}
        </label>
        <div class="flex items-center gap-2">
          <button type="button" class="btn btn-secondary h-11 w-11 px-0 text-lg" data-spots-step="-1" aria-label={t("booking.fewerSpots")} aria-controls={id} hidden>
            −
          </button>
          <input
            id={id}
            class="input w-20 text-center"
            type="number"
            name="spots"
            inputmode="numeric"
            min={String(bounds.min)}
            max={String(bounds.max)}
            step="1"
            value={spotsValue(spots)}
            required
            aria-describedby={`${id}-hint`}
            data-spots-input
          />
          <button type="button" class="btn btn-secondary h-11 w-11 px-0 text-lg" data-spots-step="1" aria-label={t("booking.moreSpots")} aria-controls={id} hidden>
            +
          </button>
        </div>
        <span id={`${id}-hint`} class="text-xs text-muted" data-spots-hint safe>
          {t("booking.spotsHint", bounds)}
        </span>
      </div>
      {offered ? (
        <div class="flex flex-col gap-1">
          <label class="flex items-start gap-2 text-sm">
            <input type="checkbox" class="mt-0.5 h-5 w-5 shrink-0" name="privateGroup" value="true" checked={shownPrivate} aria-describedby={`${idPrefix}-private-hint`} data-private-group />
            <span safe>{t("booking.privateGroupFrom", { price: money(seats.privateGroupPriceCents!) })}</span>
          </label>
          <span id={`${idPrefix}-private-hint`} class="pl-7 text-xs text-muted" safe>
            {t("booking.privateGroupHint")}
          </span>
        </div>
      ) : (
        ""
      )}
      <dl class="flex flex-col gap-1 rounded-xl bg-sunken px-3 py-2 text-sm" aria-live="polite" data-group-total>
        <div class="flex justify-between gap-3">
          <dt data-total-label safe>
            {shownPrivate ? config.privateLabel : (config.subtotalLabels[counted] ?? "")}
          </dt>
          <dd data-total-subtotal safe>
            {money(price.subtotalCents)}
          </dd>
        </div>
        <div class="flex justify-between gap-3">
          <dt safe>{t("booking.serviceFee")}</dt>
          <dd data-total-fee safe>
            {money(price.serviceFeeCents)}
          </dd>
        </div>
        <div class="flex justify-between gap-3 font-semibold">
          <dt safe>{t("booking.total")}</dt>
          <dd data-total-total safe>
            {money(price.totalCents)}
          </dd>
        </div>
      </dl>
    </div>
  );
}
