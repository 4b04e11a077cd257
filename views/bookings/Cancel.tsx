import type { Booking } from "../../db/schema";
import { formatMoney } from "../../lib/money";
import type { CancellationQuote } from "../../src/bookings/policies";
import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { formatDeadline, formatHour, formatLongDate, hoursText, policyName } from "./Parts";

export interface CancelData {
  booking: Booking;
  activity: { id: string; title: string };
  quote: CancellationQuote;
}

/**
 * /bookings/{id}/cancel: what comes back before a guest cancels an accepted booking ("You get
 * €36.00 of €45.00 back"), by the policy the booking was requested under, and the confirmation
 * (docs/decisions/0050). A plain page and form: it works without JavaScript. The form sends the
 * refund shown, so a window that closed meanwhile is said, not silently applied.
 */
export function CancelScreen({ view, data }: { view: View; data: CancelData }) {
  const { t } = view;
  const b = data.booking;
  const q = data.quote;
  const money = (cents: number) => formatMoney(cents, view.locale, { currency: q.currency });
  const refund = money(q.refundableCents);
  const [date = "", time = ""] = b.startsAtLocal.split("T");
  const back = `/bookings/${b.id}`;
  const policy = policyName(view, q.policy);
  return (
    <AppLayout view={view} title={t("cancel.title")}>
      <>
        <ScreenHeader view={view} title={t("cancel.title")} back={back} />
        <div class="flex flex-col gap-4">
          <section class="card p-4 text-sm">
            <h2 class="font-semibold" safe>
              {data.activity.title}
            </h2>
            <p class="text-muted" safe>
              {`${formatLongDate(view, date)} · ${formatHour(view, time.slice(0, 5))} · ${hoursText(view, b.durationMinutes)}`}
            </p>
          </section>
          <section class="card p-4" aria-labelledby="cancel-refund" data-cancel-preview>
            <p id="cancel-refund" class="text-lg font-semibold" data-refund={String(q.refundableCents)} safe>
              {t("cancel.refund", { refund, paid: money(q.totalCents) })}
            </p>
            <p class="mt-1 text-sm text-muted" safe>
              {q.refundableCents === 0
                ? t("cancel.refundNone")
                : q.deadline !== null && q.deadline < b.startsAt
                  ? t("cancel.refundWhen", { policy, deadline: formatDeadline(view, q.deadline, b.timeZone) })
                  : t("cancel.refundFinal", { policy })}
            </p>
          </section>
          <form method="post" action={`/api/bookings/${b.id}/cancel`} class="flex flex-col gap-3">
            <input type="hidden" name="_csrf" value={view.csrf} />
            <input type="hidden" name="next" value={back} />
            <input type="hidden" name="refundCents" value={String(q.refundableCents)} />
            <button type="submit" class="btn btn-primary w-full" data-action="cancel" data-busy-text={t("booking.processing")} safe>
              {q.refundableCents === 0 ? t("cancel.confirmNothing") : t("cancel.confirm", { refund })}
            </button>
            <a href={back} class="btn btn-secondary w-full" safe>
              {t("cancel.keep")}
            </a>
          </form>
        </div>
      </>
    </AppLayout>
  );
}
