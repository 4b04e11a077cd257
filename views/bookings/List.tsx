import type { BookingStatus } from "../../db/schema";
import { sessionKey, type HostSession, type InboxOrder, type InboxRow } from "../../src/bookings/queries";
import { formatMoney } from "../../lib/money";
import { rosterText, SpotsLine } from "./Seats";
import type { MessageKey } from "../../lib/i18n";
import { isUnread } from "../../src/bookings/unread";
import { systemLine, systemTexts } from "../../src/conversations/wording";
import { participantUser } from "../../src/profiles/serialize";
import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { Avatar, shownName } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { messageStamp } from "../../shared/chat-state";
import { formatHour, formatShortDate, spotsText } from "./Parts";
import { isGroupBooking } from "../../src/bookings/sessions";

const STATUS: Record<BookingStatus, { key: MessageKey; class: string }> = {
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

export const statusLabel = (view: View, status: BookingStatus) => view.t(STATUS[status].key);

export function StatusBadge({ view, status }: { view: View; status: BookingStatus }) {
  const s = STATUS[status];
  return (
    <span class={`shrink-0 rounded-full px-2 py-0.5 text-xs font-medium ${s.class}`} data-status={status} safe>
      {view.t(s.key)}
    </span>
  );
}

/** A booking action as a plain form post (works without JavaScript); the answer comes back to `next` with its toast. */
export function ActionButton({ view, bookingId, action, label, next, primary }: { view: View; bookingId: string; action: string; label: string; next: string; primary?: boolean }) {
  return (
    <form method="post" action={`/api/bookings/${bookingId}/${action}`} class="flex-1">
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="next" value={next} />
      <button type="submit" class={`btn ${primary ? "btn-primary" : "btn-secondary"} w-full`} data-action={action} data-busy-text={view.t("booking.processing")} safe>
        {label}
      </button>
    </form>
  );
}

/** What a row says of the newest message: the text (the viewer's own marked), or the system line worded for the viewer. */
function preview(view: View, row: InboxRow, viewerId: string, otherName: string | null) {
  const last = row.last;
  if (!last) return view.t("inbox.noMessages");
  if (last.isSystemMessage) {
    const role = row.booking.guestId === viewerId ? "guest" : "host";
    return systemLine(systemTexts(view.t, role, otherName, row.booking), last, viewerId) ?? "";
  }
  return last.senderId === viewerId ? view.t("inbox.mine", { text: last.content }) : last.content;
}

/** One conversation: who, what, when, its state, the newest message, unread or not; the host's answers below it. */
function InboxItem({ view, row, now, reviewable, roster }: { view: View; row: InboxRow; now: number; reviewable: boolean; roster?: HostSession }) {
  const { t } = view;
  const viewerId = view.user!.id;
  const b = row.booking;
  const role = b.guestId === viewerId ? "guest" : "host";
  const other = participantUser(role === "guest" ? row.host : row.guest, new Date(now));
  const unread = isUnread(row.last, viewerId);
  const [date = "", time = ""] = b.startsAtLocal.split("T");
  const next = "/bookings";
  return (
    <li class={`card p-3 ${unread ? "border-brand-500" : ""}`} data-booking={b.id} data-unread={unread ? "true" : "false"}>
      <a href={`/bookings/${b.id}`} class="flex gap-3 rounded-xl focus-visible:outline-offset-4">
        <Avatar photo={other.photo} name={other.firstName} size={48} />
        <div class="min-w-0 flex-1">
          <div class="flex items-center justify-between gap-2">
            <p class={`truncate ${unread ? "font-bold" : "font-medium"}`} safe>
              {shownName(view, other.firstName)}
            </p>
            <span class="flex shrink-0 items-center gap-1.5">
              <time datetime={new Date(row.activityAt).toISOString()} class="text-xs text-muted" safe>
                {messageStamp(view.locale, row.activityAt, now, b.timeZone)}
              </time>
              {unread ? (
                <span class="h-2.5 w-2.5 rounded-full bg-brand-600" data-unread-dot>
                  <span class="sr-only" safe>
                    {t("inbox.unread")}
                  </span>
                </span>
              ) : (
                ""
              )}
            </span>
          </div>
          <div class="flex items-center justify-between gap-2">
            <p class="truncate text-sm" safe>
              {row.activity.title}
            </p>
            <StatusBadge view={view} status={b.status} />
          </div>
          {/* When, on its own line that is never cut: a long title must not hide it, and several
              requests for one activity differ only by it. */}
          <p class="text-sm" data-booking-when safe>
            {`${formatShortDate(view, date)}, ${formatHour(view, time.slice(0, 5))}${isGroupBooking(b) ? ` · ${spotsText(view, b)}` : ""}`}
          </p>
          {b.pricePerPersonCents !== null ? (
            // A group booking: its spots, a private group's badge, its money; for the host, the session's roster.
            <p class="flex flex-wrap items-center gap-x-2 text-sm" data-booking-spots>
              <SpotsLine view={view} spots={b.spots} privateGroup={b.privateGroup} />
              <span class="text-muted" safe>
                {role === "host"
                  ? t("host.sessionGuestMoney", { paid: formatMoney(b.totalCents, view.locale, { currency: b.currency }), earnings: formatMoney(b.hostEarningsCents, view.locale, { currency: b.currency }) })
                  : formatMoney(b.totalCents, view.locale, { currency: b.currency })}
              </span>
              {role === "host" && roster ? (
                <span class="text-muted" data-roster safe>
                  {rosterText(view, roster)}
                </span>
              ) : (
                ""
              )}
            </p>
          ) : (
            ""
          )}
          <p class={`mt-0.5 truncate text-sm ${unread ? "font-semibold text-ink" : "text-muted"}`} data-preview safe>
            {preview(view, row, viewerId, shownName(view, other.firstName))}
          </p>
        </div>
      </a>
      {role === "host" && b.status === "pending" ? (
        <div class="mt-3 flex gap-2">
          <ActionButton view={view} bookingId={b.id} action="reject" label={t("bookings.decline")} next={next} />
          <ActionButton view={view} bookingId={b.id} action="accept" label={t("bookings.accept")} next={next} primary />
        </div>
      ) : (
        ""
      )}
      {role === "host" && b.status === "accepted" && b.startsAt <= now ? (
        <div class="mt-3 flex gap-2">
          <ActionButton view={view} bookingId={b.id} action="complete" label={t("bookings.complete")} next={next} primary />
        </div>
      ) : (
        ""
      )}
      {role === "guest" && b.status === "awaiting_payment" ? (
        <a href={`/checkout/${b.id}`} class="btn btn-primary mt-3 w-full" safe>
          {t("bookings.completePayment")}
        </a>
      ) : (
        ""
      )}
      {reviewable ? (
        <a href={`/review?${new URLSearchParams({ bookingId: b.id, userType: role })}`} class="btn btn-secondary mt-3 w-full" safe>
          {t("reviews.leaveReview")}
        </a>
      ) : (
        ""
      )}
    </li>
  );
}

/**
 * The sort choice and the list: the part a sort swaps (htmx) or a plain link reloads. The
 * current order is marked for screen readers.
 */
export function InboxList({ view, rows, order, now, toReview, rosters }: { view: View; rows: InboxRow[]; order: InboxOrder; now: number; toReview: Set<string>; rosters?: Map<string, HostSession> }) {
  const { t } = view;
  const sortLink = (value: InboxOrder, label: string) => (
    <a
      href={value === "newest" ? "/bookings" : "/bookings?sort=oldest"}
      class={`tab flex-1 ${order === value ? "tab-active" : ""}`}
      aria-current={order === value ? "true" : undefined}
      hx-get={value === "newest" ? "/bookings" : "/bookings?sort=oldest"}
      hx-target="#inbox"
      hx-swap="outerHTML"
      hx-push-url="true"
      hx-indicator="#inbox-loading"
      safe
    >
      {label}
    </a>
  );
  return (
    <div id="inbox">
      {rows.length === 0 ? (
        <div class="card p-6 text-center">
          <p class="font-medium" safe>
            {t("bookings.empty")}
          </p>
          <p class="mt-1 text-sm text-muted" safe>
            {t("bookings.emptyBody")}
          </p>
        </div>
      ) : (
        <>
          <nav class="mb-3 flex gap-1 rounded-xl bg-sunken p-1 text-sm" aria-label={t("inbox.sort")}>
            {sortLink("newest", t("inbox.newest"))}
            {sortLink("oldest", t("inbox.oldest"))}
          </nav>
          <ul class="flex flex-col gap-3" aria-label={t("inbox.listLabel")} data-order={order}>
            {rows.map((row) => (
              <InboxItem view={view} row={row} now={now} reviewable={toReview.has(row.booking.id)} roster={rosters?.get(sessionKey(row.booking))} />
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** /bookings and /messages: the person's conversations, as guest and as host, by last activity. */
export function BookingsScreen({ view, rows, order, now, toReview, rosters }: { view: View; rows: InboxRow[]; order: InboxOrder; now: number; toReview: Set<string>; rosters?: Map<string, HostSession> }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("nav.bookings")}>
      <>
        <ScreenHeader view={view} title={t("nav.bookings")} />
        <p id="inbox-loading" class="htmx-indicator mb-3 text-sm text-muted" role="status" safe>
          {t("inbox.loading")}
        </p>
        <InboxList view={view} rows={rows} order={order} now={now} toReview={toReview} rosters={rosters} />
      </>
    </AppLayout>
  );
}
