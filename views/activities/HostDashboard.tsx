import { formatLocal } from "../../lib/time";
import type { Activity, User } from "../../db/schema";
import type { HostRequest } from "../../src/bookings/queries";
import { formatMoney } from "../../lib/money";
import type { View } from "../../src/shell/view";
import { photoUrl } from "../../src/uploads/service";
import { coverPhoto } from "../../src/activities/categories";
import { ScreenHeader } from "../components/Fields";
import { Icon } from "../components/icons";
import { Avatar } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";
import { ActionButton } from "../bookings/List";
import { hoursText } from "../bookings/Parts";

export interface DashboardData {
  user: User;
  activities: Activity[];
  activityCount: number;
  requests: HostRequest[];
  requestCount: number;
  earnings: { totalEarningsCents: number; pendingPayoutsCents: number; completedBookings: number };
  /** The host has a payout account that can receive transfers. */
  payoutsReady: boolean;
}

/** /host (also /host-dashboard): counters, quick actions, earnings, activities, requests. */
export function HostDashboard({ view, data }: { view: View; data: DashboardData }) {
  const { t } = view;
  const money = (cents: number) => formatMoney(cents, view.locale);
  const counters = [
    { label: t("host.activities"), value: String(data.activityCount) },
    { label: t("host.requests"), value: String(data.requestCount) },
    // Earnings to the cent, as the spec shows them everywhere (only hourly rates are whole dollars).
    { label: t("host.earnings"), value: money(data.earnings.totalEarningsCents) },
  ];
  return (
    <AppLayout view={view} title={t("host.title")}>
      <>
        <ScreenHeader view={view} title={t("host.title")} />
        <ul class="grid grid-cols-3 gap-2">
          {counters.map((c) => (
            <li class="card p-3 text-center">
              <p class="truncate text-lg font-bold" safe>
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
                {money(data.earnings.totalEarningsCents)}
              </dd>
            </div>
            <div class="flex justify-between px-4 py-3">
              <dt class="text-muted" safe>
                {t("host.pendingPayouts")}
              </dt>
              <dd class="font-semibold" safe>
                {money(data.earnings.pendingPayoutsCents)}
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
          {data.earnings.totalEarningsCents > 0 && !data.payoutsReady ? (
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
                        {`${r.guestName ?? ""} · ${r.activityTitle}`}
                      </p>
                      {/* Its own line, never cut: several requests for one activity differ only by when. */}
                      <p class="text-sm text-muted" data-request-when safe>
                        {`${formatLocal(r.startsAtLocal, view.locale)} · ${hoursText(view, r.durationMinutes)}`}
                      </p>
                    </div>
                  </div>
                  {/* The same two amounts, labelled alike, as the conversation's booking card shows the host. */}
                  <dl class="mt-2 grid grid-cols-2 gap-2 text-sm" data-request-amounts>
                    <div>
                      <dt class="text-muted" safe>
                        {t("conversation.guestPays")}
                      </dt>
                      <dd class="ml-0 font-semibold" safe>
                        {money(r.totalCents)}
                      </dd>
                    </div>
                    <div>
                      <dt class="text-muted" safe>
                        {t("conversation.yourEarnings")}
                      </dt>
                      <dd class="ml-0 font-semibold" safe>
                        {money(r.hostEarningsCents)}
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

export function HostActivityRow({ view, activity }: { view: View; activity: Activity }) {
  const { t } = view;
  return (
    <li class="card flex items-center gap-3 p-2">
      <img src={photoUrl(coverPhoto(activity), "thumb")!} alt="" width="56" height="56" class="h-14 w-14 shrink-0 rounded-lg object-cover" />
      <a href={`/activity/${activity.id}`} class="min-w-0 flex-1">
        <p class="truncate font-medium" safe>
          {activity.title}
        </p>
        <p class="text-sm text-muted" safe>
          {`${formatMoney(activity.hourlyRateCents, view.locale, { whole: true })}${t("browse.perHour")} · ${activity.city}`}
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
        <a href={`/edit-activity/${activity.id}`} class="btn btn-ghost px-2.5" aria-label={t("activity.editNamed", { title: activity.title })}>
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
