import { formatLocal } from "../../lib/time";
import type { Activity, User } from "../../db/schema";
import type { CurrencyEarnings, HostRequest, HostSession, RosterGuest } from "../../src/bookings/queries";
import { formatMoney } from "../../lib/money";
import type { View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { coverPhoto } from "../../src/activities/categories";
import { ScreenHeader } from "../components/Fields";
import { Icon } from "../components/icons";
import { Avatar, shownName } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { ActionButton, StatusBadge } from "../bookings/List";
import { hoursText } from "../bookings/Parts";
import { rosterText, SpotsLine } from "../bookings/Seats";
import { activityPriceParts } from "./Price";
import { activityGroupPrice } from "../../src/activities/queries";

export interface DashboardData {
  user: User;
  activities: Activity[];
  activityCount: number;
  requests: HostRequest[];
  requestCount: number;
  /** The group sessions of the host's activities that have spots held and are not over, soonest first. */
  sessions: HostSession[];
  /** The host's money, one sum per currency (never added together); none yet is shown as 0 in `currency`. */
  earnings: { byCurrency: CurrencyEarnings[]; completedBookings: number };
  /** The currency of the host's own city, for earnings not made yet. */
  currency: string;
  /** The host has a payout account that can receive transfers. */
  payoutsReady: boolean;
}

/** /host (also /host-dashboard): counters, quick actions, earnings, activities, requests. */
export function HostDashboard({ view, data }: { view: View; data: DashboardData }) {
  const { t } = view;
  const money = (cents: number, currency: string) => formatMoney(cents, view.locale, { currency });
  // One amount per currency the host has earned in, side by side: amounts of different currencies are never added.
  const sums = data.earnings.byCurrency.length ? data.earnings.byCurrency : [{ currency: data.currency, totalEarningsCents: 0, pendingPayoutsCents: 0, owedCents: 0 }];
  const each = (amount: (e: (typeof sums)[number]) => number) => sums.map((e) => money(amount(e), e.currency)).join(" · ");
  const earned = sums.some((e) => e.totalEarningsCents > 0);
  // A request for a group session shows its spots and the session's roster (docs/decisions/0049).
  const sessionOfBooking = new Map(data.sessions.flatMap((s) => s.guests.map((g) => [g.bookingId, s] as const)));
  const requestSession = (bookingId: string) => sessionOfBooking.get(bookingId);
  const counters = [
    { label: t("host.activities"), value: String(data.activityCount) },
    { label: t("host.requests"), value: String(data.requestCount) },
    // Earnings to the cent, as the spec shows them everywhere (only hourly rates are whole dollars).
    { label: t("host.earnings"), value: each((e) => e.totalEarningsCents) },
  ];
  return (
    <AppLayout view={view} title={t("host.title")}>
      <>
        <ScreenHeader view={view} title={t("host.title")} />
        {/* Two counters side by side and the earnings under them across the width: an amount to the
            cent (or one per currency) does not fit a third of a phone's width. */}
        <ul class="grid grid-cols-2 gap-2">
          {counters.map((c) => (
            <li class="card p-3 text-center last:col-span-2">
              <p class="text-lg font-bold [overflow-wrap:anywhere]" safe>
                {c.value}
              </p>
              <p class="text-xs text-muted" safe>
                {c.label}
              </p>
            </li>
          ))}
        </ul>

        <section class="mt-6">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("host.quickActions")}
          </h2>
          <div class="grid grid-cols-2 gap-2">
            <a href="/create-activity-flow" class="btn btn-primary" safe>
              {t("host.createActivity")}
            </a>
            <a href="/messages" class="btn btn-secondary" safe>
              {t("host.viewMessages")}
            </a>
            <a href="/host/availability" class="btn btn-secondary col-span-2" data-availability-link safe>
              {t("availability.openLink")}
            </a>
          </div>
        </section>

        <section class="mt-6">
          <h2 class="mb-2 text-lg font-semibold" safe>
            {t("host.earningsSummary")}
          </h2>
          <dl class="card divide-y divide-line">
            <div class="flex justify-between px-4 py-3">
              <dt class="text-muted" safe>
                {t("host.totalEarnings")}
              </dt>
              <dd class="font-semibold" safe>
                {each((e) => e.totalEarningsCents)}
              </dd>
            </div>
            <div class="flex justify-between px-4 py-3">
              <dt class="text-muted" safe>
                {t("host.pendingPayouts")}
              </dt>
              <dd class="font-semibold" safe>
                {each((e) => e.pendingPayoutsCents)}
              </dd>
            </div>
            <div class="flex justify-between px-4 py-3">
              <dt class="text-muted" safe>
                {t("host.completedBookings")}
              </dt>
              <dd class="font-semibold" safe>
                {String(data.earnings.completedBookings)}
              </dd>
            </div>
          </dl>
          {/* What the host owes from a refund after a payout, in its booking's currency (docs/decisions/0051). */}
          {sums
            .filter((e) => e.owedCents > 0)
            .map((e) => (
              <p class="mt-2 text-sm text-muted" data-owed-after-payout safe>
                {t("host.owedAfterPayout", { amount: money(e.owedCents, e.currency) })}
              </p>
            ))}
          {earned && !data.payoutsReady ? (
            <a href="/stripe-connect-setup" class="btn btn-primary mt-3 w-full" safe>
              {t("host.verifyToWithdraw")}
            </a>
          ) : (
            ""
          )}
        </section>

        {/* "View all" links are 44 px tall (min-h-11): a finger's target, not just the text's line. */}
        <section class="mt-6">
          <div class="mb-2 flex items-center justify-between">
            <h2 class="text-lg font-semibold" safe>
              {t("host.myActivities")}
            </h2>
            {data.activityCount > 0 ? (
              <a href="/host/activities" class="link inline-flex min-h-11 items-center text-sm" safe>
                {t("common.viewAll")}
              </a>
            ) : (
              ""
            )}
          </div>
          {data.activities.length ? (
            <ul class="flex flex-col gap-2">
              {data.activities.slice(0, 4).map((a) => (
                <HostActivityRow view={view} activity={a} />
              ))}
            </ul>
          ) : (
            <div class="card p-6 text-center">
              <p class="font-medium" safe>
                {t("host.noActivities")}
              </p>
              <a href="/create-activity-flow" class="btn btn-primary mt-3" safe>
                {t("host.createActivity")}
              </a>
            </div>
          )}
        </section>

        {data.sessions.length ? (
          <section class="mt-6" data-sessions>
            <h2 class="mb-2 text-lg font-semibold" safe>
              {t("host.upcomingSessions")}
            </h2>
            <ul class="flex flex-col gap-2">
              {data.sessions.slice(0, SESSIONS_SHOWN).map((s) => (
                <SessionCard view={view} session={s} />
              ))}
            </ul>
          </section>
        ) : (
          ""
        )}

        <section class="mt-6">
          <div class="mb-2 flex items-center justify-between">
            <h2 class="text-lg font-semibold" safe>
              {t("host.recentRequests")}
            </h2>
            {data.requestCount > 0 ? (
              <a href="/bookings" class="link inline-flex min-h-11 items-center text-sm" safe>
                {t("common.viewAll")}
              </a>
            ) : (
              ""
            )}
          </div>
          {data.requests.length ? (
            <ul class="flex flex-col gap-2">
              {data.requests.slice(0, 3).map((r) => (
                <li class="card p-3" data-request={r.id}>
                  <div class="flex items-center gap-3">
                    <Avatar photo={r.guestPhoto} name={r.guestName} size={40} />
                    <div class="min-w-0 flex-1">
                      <p class="truncate font-medium" safe>
                        {`${shownName(view, r.guestName)} · ${r.activityTitle}`}
                      </p>
                      {/* Its own line, never cut: several requests for one activity differ only by when. */}
                      <p class="text-sm text-muted" data-request-when safe>
                        {`${formatLocal(r.startsAtLocal, view.locale)} · ${hoursText(view, r.durationMinutes)}`}
                      </p>
                      {requestSession(r.id) ? <GroupRequestLine view={view} session={requestSession(r.id)!} bookingId={r.id} /> : ""}
                    </div>
                  </div>
                  {/* The same two amounts, labelled alike, as the conversation's booking card shows the host. */}
                  <dl class="mt-2 grid grid-cols-2 gap-2 text-sm" data-request-amounts>
                    <div>
                      <dt class="text-muted" safe>
                        {t("conversation.guestPays")}
                      </dt>
                      <dd class="ml-0 font-semibold" safe>
                        {money(r.totalCents, r.currency)}
                      </dd>
                    </div>
                    <div>
                      <dt class="text-muted" safe>
                        {t("conversation.yourEarnings")}
                      </dt>
                      <dd class="ml-0 font-semibold" safe>
                        {money(r.hostEarningsCents, r.currency)}
                      </dd>
                    </div>
                  </dl>
                  <div class="mt-3 flex gap-2">
                    <ActionButton view={view} bookingId={r.id} action="reject" label={t("bookings.decline")} next="/host" />
                    <ActionButton view={view} bookingId={r.id} action="accept" label={t("bookings.accept")} next="/host" primary />
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p class="card p-4 text-sm text-muted" safe>
              {t("host.noRequests")}
            </p>
          )}
        </section>
      </>
    </AppLayout>
  );
}

/** The dashboard shows this many upcoming sessions. */
const SESSIONS_SHOWN = 5;

/** A request's line for a group session: its spots and the session's roster. */
function GroupRequestLine({ view, session, bookingId }: { view: View; session: HostSession; bookingId: string }) {
  const guest = session.guests.find((g) => g.bookingId === bookingId)!;
  return (
    <p class="flex flex-wrap items-center gap-x-2 text-sm" data-request-spots>
      <SpotsLine view={view} spots={guest.spots} privateGroup={guest.privateGroup} />
      <span class="text-muted" data-roster safe>
        {rosterText(view, session)}
      </span>
    </p>
  );
}

/** One upcoming session: when, the roster, each guest's first name, spots and money. */
function SessionCard({ view, session }: { view: View; session: HostSession }) {
  const { t } = view;
  const money = (cents: number, currency: string) => formatMoney(cents, view.locale, { currency });
  return (
    <li class="card p-3" data-session={`${session.activityId}@${session.startsAt}`}>
      <div class="flex items-start justify-between gap-2">
        <div class="min-w-0">
          <p class="truncate font-medium" safe>
            {session.activityTitle}
          </p>
          <p class="text-sm text-muted" safe>
            {`${formatLocal(session.startsAtLocal, view.locale)} · ${hoursText(view, session.durationMinutes)}`}
          </p>
        </div>
        <p class="shrink-0 text-sm font-semibold" data-roster safe>
          {rosterText(view, session)}
        </p>
      </div>
      {session.guests.length ? (
        <ul class="mt-2 flex flex-col divide-y divide-line text-sm">
          {session.guests.map((g: RosterGuest) => (
            <li class="flex flex-wrap items-center justify-between gap-x-3 gap-y-1 py-1.5" data-roster-guest={g.bookingId}>
              <span class="flex min-w-0 flex-wrap items-center gap-2">
                <span class="font-medium" safe>
                  {shownName(view, g.firstName)}
                </span>
                <SpotsLine view={view} spots={g.spots} privateGroup={g.privateGroup} />
                <StatusBadge view={view} status={g.status} />
              </span>
              <span class="text-muted" data-guest-money safe>
                {t("host.sessionGuestMoney", { paid: money(g.totalCents, g.currency), earnings: money(g.hostEarningsCents, g.currency) })}
              </span>
            </li>
          ))}
        </ul>
      ) : (
        ""
      )}
      {session.paying > 0 ? (
        <p class="mt-1 text-sm text-muted" safe>
          {t("host.sessionPaying", { n: session.paying })}
        </p>
      ) : (
        ""
      )}
    </li>
  );
}

export function HostActivityRow({ view, activity }: { view: View; activity: Activity }) {
  const { t } = view;
  const price = activityPriceParts(view, activity);
  const group = activityGroupPrice(activity);
  return (
    <li class="card flex items-center gap-3 p-2">
      <img src={photoUrl(coverPhoto(activity), "thumb")!} alt="" width="56" height="56" class="h-14 w-14 shrink-0 rounded-lg object-cover" />
      <a href={`/activity/${activity.id}`} class="min-w-0 flex-1">
        <p class="truncate font-medium" safe>
          {activity.title}
        </p>
        <p class="text-sm text-muted" safe>
          {`${price.amount}${price.unit}${group ? ` · ${t("activity.groupOf", { n: group.capacity })}` : ""} · ${activity.city}`}
        </p>
        {activity.hiddenAt !== null ? (
          <p class="text-sm font-medium text-red-700 dark:text-red-300" safe>
            {t("moderation.hiddenForHost")}
          </p>
        ) : (
          ""
        )}
      </a>
      {activity.hiddenAt === null ? (
        <a href={`/edit-activity/${activity.id}`} class="btn-icon" aria-label={t("activity.editNamed", { title: activity.title })}>
          <Icon name="edit" class="w-5 h-5" />
        </a>
      ) : (
        ""
      )}
    </li>
  );
}

/** /host/activities: all of a host's activities. */
export function HostActivities({ view, activities }: { view: View; activities: Activity[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("host.myActivities")}>
      <>
        <ScreenHeader view={view} title={t("host.myActivities")} back="/host" />
        {activities.length ? (
          <ul class="flex flex-col gap-2">
            {activities.map((a) => (
              <HostActivityRow view={view} activity={a} />
            ))}
          </ul>
        ) : (
          <p class="card p-4 text-sm text-muted" safe>
            {t("host.noActivities")}
          </p>
        )}
      </>
    </AppLayout>
  );
}
