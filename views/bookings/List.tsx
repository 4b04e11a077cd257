import type { BookingListItem } from "../../src/bookings/reads";
import { categoryPhoto } from "../../src/activities/categories";
import type { MessageKey } from "../../src/lib/i18n";
import { formatMoney } from "../../src/lib/money";
import type { View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { formatHour, formatShortDate, hoursText } from "./Parts";

const STATUS: Record<string, { key: MessageKey; class: string }> = {
  awaiting_payment: { key: "status.awaiting_payment", class: "bg-amber-100 text-amber-900" },
  pending: { key: "status.pending", class: "bg-amber-100 text-amber-900" },
  accepted: { key: "status.accepted", class: "bg-green-100 text-green-900" },
  rejected: { key: "status.rejected", class: "bg-red-100 text-red-900" },
  expired: { key: "status.expired", class: "bg-sunken text-ink" },
  canceled: { key: "status.canceled", class: "bg-sunken text-ink" },
  completed: { key: "status.completed", class: "bg-blue-100 text-blue-900" },
  no_show_guest: { key: "status.no_show_guest", class: "bg-sunken text-ink" },
  no_show_host: { key: "status.no_show_host", class: "bg-sunken text-ink" },
};

export function StatusBadge({ view, status }: { view: View; status: string }) {
  const s = STATUS[status];
  return (
    <span class={`rounded-full px-2 py-0.5 text-xs font-medium ${s?.class ?? "bg-sunken"}`} data-status={status} safe>
      {s ? view.t(s.key) : status}
    </span>
  );
}

/** A booking action as a plain form post (works without JavaScript); the answer comes back here. */
export function ActionButton({ view, bookingId, action, label, next, primary }: { view: View; bookingId: string; action: string; label: string; next: string; primary?: boolean }) {
  return (
    <form method="post" action={`/api/bookings/${bookingId}/${action}`} class="flex-1">
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="next" value={next} />
      <button type="submit" class={`btn ${primary ? "btn-primary" : "btn-secondary"} w-full`} data-busy-text={view.t("booking.processing")} safe>
        {label}
      </button>
    </form>
  );
}

/** /bookings: every booking the person is on, as guest and as host, with its state and actions; `toReview` are those they may review now. */
export function BookingsScreen({ view, items, now, toReview = new Set() }: { view: View; items: BookingListItem[]; now: number; toReview?: Set<string> }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("nav.bookings")}>
      <>
        <ScreenHeader view={view} title={t("nav.bookings")} />
        {items.length === 0 ? (
          <div class="card p-6 text-center">
            <p class="font-medium" safe>
              {t("bookings.empty")}
            </p>
            <p class="mt-1 text-sm text-muted" safe>
              {t("bookings.emptyBody")}
            </p>
          </div>
        ) : (
          <ul class="flex flex-col gap-3">
            {items.map(({ view: b, booking, activity }) => {
              const other = b.role === "guest" ? b.host : b.guest;
              const [date = "", time = ""] = b.proposedDatetime.split("T");
              const started = booking.startsAt <= now;
              return (
                <li class="card p-3" data-booking={b.id}>
                  <div class="flex gap-3">
                    <img src={photoUrl(activity.photos[0] ?? categoryPhoto(activity.category), "thumb")!} alt="" width="56" height="56" class="h-14 w-14 shrink-0 rounded-lg object-cover" />
                    <div class="min-w-0 flex-1">
                      <div class="flex items-start justify-between gap-2">
                        <p class="truncate font-medium" safe>
                          {b.activity.title}
                        </p>
                        <StatusBadge view={view} status={b.status} />
                      </div>
                      <p class="text-sm text-muted" safe>
                        {`${t(b.role === "guest" ? "bookings.withHost" : "bookings.fromGuest", { name: other.firstName ?? "" })}`}
                      </p>
                      <p class="text-sm" safe>
                        {`${formatShortDate(view, date)} · ${formatHour(view, time.slice(0, 5))} · ${hoursText(view, b.durationMinutes)} · ${formatMoney(b.role === "guest" ? booking.totalCents : booking.hostEarningsCents, view.locale)}`}
                      </p>
                    </div>
                  </div>
                  {b.role === "host" && b.status === "pending" ? (
                    <div class="mt-3 flex gap-2">
                      <ActionButton view={view} bookingId={b.id} action="reject" label={t("bookings.decline")} next="/bookings" />
                      <ActionButton view={view} bookingId={b.id} action="accept" label={t("bookings.accept")} next="/bookings" primary />
                    </div>
                  ) : (
                    ""
                  )}
                  {b.role === "host" && b.status === "accepted" ? (
                    <div class="mt-3 flex gap-2">
                      <ActionButton view={view} bookingId={b.id} action="cancel" label={t("bookings.cancel")} next="/bookings" />
                      {started ? <ActionButton view={view} bookingId={b.id} action="complete" label={t("bookings.complete")} next="/bookings" primary /> : ""}
                    </div>
                  ) : (
                    ""
                  )}
                  {b.role === "guest" && (b.status === "pending" || b.status === "accepted") ? (
                    <div class="mt-3 flex gap-2">
                      <ActionButton view={view} bookingId={b.id} action="cancel" label={t(b.status === "pending" ? "bookings.withdraw" : "bookings.cancel")} next="/bookings" />
                    </div>
                  ) : (
                    ""
                  )}
                  {toReview.has(b.id) ? (
                    <a href={`/review?${new URLSearchParams({ bookingId: b.id, userType: b.role })}`} class="btn btn-secondary mt-3 w-full" safe>
                      {t("reviews.leaveReview")}
                    </a>
                  ) : (
                    ""
                  )}
                  {b.role === "guest" && b.status === "awaiting_payment" ? (
                    <a href={`/checkout/${b.id}`} class="btn btn-primary mt-3 w-full" safe>
                      {t("bookings.completePayment")}
                    </a>
                  ) : (
                    ""
                  )}
                </li>
              );
            })}
          </ul>
        )}
      </>
    </AppLayout>
  );
}
