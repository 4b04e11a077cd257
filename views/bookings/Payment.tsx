import type { Activity, Booking, BookingSelection } from "../../db/schema";
import { formatMoney } from "../../lib/money";
import type { Price } from "../../shared/pricing";
import type { View } from "../../src/shell/view";
import type { Slot } from "../../src/bookings/times";
import { groupOf, isGroupBooking } from "../../src/bookings/sessions";
import { ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { ActivitySummary, CancellationPolicy, PaymentForm, formatHour, formatLongDate, hoursText, PriceDetails, spotsText, type CardState } from "./Parts";

export type { CardState };

export interface PaymentData {
  activity: Activity;
  hostName: string;
  selection: BookingSelection;
  slot: Slot;
  price: Price;
  testMode: boolean;
}

/** /booking/{id}/payment: the choice, the price, the policy and the card (spec "Payment screen"). */
export function PaymentScreen({ view, data, card }: { view: View; data: PaymentData; card: CardState }) {
  const { t } = view;
  const currency = data.activity.currency;
  const total = formatMoney(data.price.totalCents, view.locale, { currency });
  const group = groupOf(data.activity);
  return (
    <AppLayout view={view} title={t("booking.confirmAndPay")}>
      <>
        <ScreenHeader view={view} title={t("booking.confirmAndPay")} back={`/booking/${data.activity.id}/date-time`} />
        <div class="flex flex-col gap-4">
          <ActivitySummary view={view} activity={data.activity} hostName={data.hostName} />
          <section class="card p-4 text-sm">
            <h2 class="mb-2 font-semibold" safe>
              {t("booking.yourBooking")}
            </h2>
            <dl class="flex flex-col gap-1">
              <div class="flex justify-between gap-3">
                <dt class="text-muted" safe>{t("booking.date")}</dt>
                <dd class="text-right" data-booking-date safe>{formatLongDate(view, data.slot.date)}</dd>
              </div>
              <div class="flex justify-between gap-3">
                <dt class="text-muted" safe>{t("booking.time")}</dt>
                <dd safe>{formatHour(view, data.slot.time)}</dd>
              </div>
              <div class="flex justify-between gap-3">
                <dt class="text-muted" safe>{group ? t("booking.sessionLengthLabel") : t("booking.duration")}</dt>
                <dd safe>{hoursText(view, data.slot.durationMinutes)}</dd>
              </div>
              {group ? (
                <>
                  <div class="flex justify-between gap-3" data-summary-spots>
                    <dt class="text-muted" safe>{t("booking.spots")}</dt>
                    <dd class="text-right" safe>{spotsText(view, data.selection)}</dd>
                  </div>
                  <div class="flex justify-between gap-3">
                    <dt class="text-muted" safe>{t("booking.pricePerPersonLabel")}</dt>
                    <dd safe>{formatMoney(group.pricePerPersonCents, view.locale, { currency })}</dd>
                  </div>
                </>
              ) : (
                ""
              )}
            </dl>
          </section>
          <PriceDetails view={view} price={data.price} currency={currency} />
          <CancellationPolicy view={view} policy={data.activity.cancellationPolicy} startsAt={data.slot.startsAt} timeZone={data.slot.timeZone} instant={data.activity.instantBooking} />
          <section class="card p-4">
            <h2 class="mb-3 font-semibold" safe>
              {t("booking.paymentMethod")}
            </h2>
            <PaymentForm
              view={view}
              action={`/booking/${data.activity.id}/payment`}
              amountCents={data.price.totalCents}
              currency={currency}
              button={t(data.activity.instantBooking ? "booking.bookAndPayAmount" : "booking.confirmAndPayAmount", { amount: total })}
              card={card}
              testMode={data.testMode}
            />
          </section>
        </div>
      </>
    </AppLayout>
  );
}

/** /checkout/{bookingId}: paying for a booking that already holds its slot (spec "Payment for an existing booking"). */
export function CheckoutScreen({ view, booking, activity, testMode, card }: { view: View; booking: Booking; activity: Activity; testMode: boolean; card: CardState }) {
  const { t } = view;
  const [date = "", time = ""] = booking.startsAtLocal.split("T");
  return (
    <AppLayout view={view} title={t("checkout.title")}>
      <>
        <ScreenHeader view={view} title={t("checkout.title")} back="/bookings" />
        <div class="flex flex-col gap-4">
          <section class="card p-4 text-sm">
            <h2 class="font-semibold" safe>
              {activity.title}
            </h2>
            <p class="text-muted" safe>
              {`${formatLongDate(view, date)} · ${formatHour(view, time.slice(0, 5))} · ${hoursText(view, booking.durationMinutes)}${isGroupBooking(booking) ? ` · ${spotsText(view, booking)}` : ""}`}
            </p>
            <p class="mt-2 font-semibold" safe>
              {`${t("booking.total")}: ${formatMoney(booking.totalCents, view.locale, { currency: booking.currency })}`}
            </p>
          </section>
          <p class="rounded-xl bg-sunken px-3 py-2 text-sm" safe>
            {t("checkout.holdNote")}
          </p>
          <section class="card p-4">
            <PaymentForm view={view} action={`/checkout/${booking.id}`} amountCents={booking.totalCents} currency={booking.currency} button={t("checkout.pay")} card={card} testMode={testMode} />
          </section>
        </div>
      </>
    </AppLayout>
  );
}
