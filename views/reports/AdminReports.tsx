import { intlLocale } from "../../lib/intl";
import type { HandledReport, ModeratedPerson, ModerationAction, PendingReport } from "../../src/reports/moderation";
import { reasonLabel } from "../../src/reports/service";
import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { ListSection } from "../components/ListSection";
import { AppLayout } from "../layouts/AppLayout";

const when = (view: View, epochMs: number) => new Date(epochMs).toLocaleString(intlLocale(view.locale), { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";

/** One action on a report, as a plain form post (works without JavaScript). */
function Action({ view, reportId, action, label, primary }: { view: View; reportId: string; action: ModerationAction; label: string; primary?: boolean }) {
  return (
    <form method="post" action={`/admin/reports/${reportId}/${action}`}>
      <input type="hidden" name="_csrf" value={view.csrf} />
      <button type="submit" class={`btn ${primary ? "btn-primary" : "btn-secondary"} text-sm`} data-action={action} safe>
        {label}
      </button>
    </form>
  );
}

function Person({ view, person }: { view: View; person: ModeratedPerson }) {
  return (
    <span>
      {person.username ? (
        <a href={`/profile/${person.username}`} class="link inline-flex min-h-11 items-center" safe>
          {person.name ?? person.username}
        </a>
      ) : (
        <span safe>{person.name ?? view.t("people.deletedUser")}</span>
      )}
      <span class="text-muted" safe>{` ${person.email ?? ""}`}</span>
      {person.suspended ? (
        <span class="ml-2 rounded-full bg-red-100 px-2 py-0.5 text-xs font-medium text-red-900" safe>
          {view.t("moderation.suspended")}
        </span>
      ) : (
        ""
      )}
    </span>
  );
}

/**
 * /admin/reports, for operators only: pending reports newest first with their target and
 * context, the three actions, and the reports handled last with who handled them and when.
 */
export function AdminReports({ view, pending, handled }: { view: View; pending: PendingReport[]; handled: HandledReport[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("moderation.title")}>
      <>
        <ScreenHeader view={view} title={t("moderation.title")} />
        <p class="mb-4 text-sm">
          <a href="/admin/payments" class="link" safe>
            {t("payments.admin.paymentsLink")}
          </a>
          {" · "}
          <a href="/admin/deletions" class="link" safe>
            {t("deletion.admin.title")}
          </a>
        </p>
        <ListSection
          id="pending-reports"
          title={t("moderation.pending")}
          empty={t("moderation.none")}
          items={pending.map((r) => (
            <li class="card flex flex-col gap-2 p-4" data-report-id={r.id}>
              <div class="flex flex-wrap items-baseline justify-between gap-2">
                <p class="font-semibold" safe>
                  {t(reasonLabel(r.reason))}
                </p>
                <p class="text-xs text-muted" safe>
                  {t("moderation.counts", { pending: r.counts.pending, total: r.counts.total })}
                </p>
              </div>
              <p class="text-sm text-muted" safe>
                {t("moderation.reportedBy", { name: r.reporter.name ?? "", email: r.reporter.email ?? "", date: when(view, r.createdAt) })}
              </p>
              {r.notes ? (
                <p class="whitespace-pre-line rounded-lg bg-sunken p-3 text-sm" safe>
                  {r.notes}
                </p>
              ) : (
                ""
              )}
              <dl class="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                {r.activity ? (
                  <>
                    <dt class="text-muted" safe>
                      {t("moderation.activity")}
                    </dt>
                    <dd class="m-0">
                      <a href={`/activity/${r.activity.id}`} class="link inline-flex min-h-11 items-center" safe>
                        {r.activity.title}
                      </a>
                      {r.activity.hidden ? (
                        <span class="ml-2 rounded-full bg-sunken px-2 py-0.5 text-xs font-medium" safe>
                          {t("moderation.hidden")}
                        </span>
                      ) : (
                        ""
                      )}
                    </dd>
                  </>
                ) : (
                  ""
                )}
                {r.person ? (
                  <>
                    <dt class="text-muted" safe>
                      {t(r.activity ? "moderation.hostedBy" : "moderation.person")}
                    </dt>
                    <dd class="m-0">
                      <Person view={view} person={r.person} />
                    </dd>
                  </>
                ) : (
                  ""
                )}
              </dl>
              <div class="mt-1 flex flex-wrap gap-2">
                <Action view={view} reportId={r.id} action="dismiss" label={t("moderation.dismiss")} />
                {r.activity && !r.activity.hidden ? <Action view={view} reportId={r.id} action="hide" label={t("moderation.hideActivity")} /> : ""}
                {r.person && !r.person.suspended ? <Action view={view} reportId={r.id} action="suspend" label={t("moderation.suspendUser", { name: r.person.name ?? "" })} primary /> : ""}
              </div>
            </li>
          ))}
        />
        {handled.length ? (
          <section class="mt-8" aria-labelledby="handled-reports">
            <h2 id="handled-reports" class="mb-2 text-lg font-semibold" safe>
              {t("moderation.handled")}
            </h2>
            <ul class="flex flex-col gap-2">
              {handled.map((h) => (
                <li class="card p-3 text-sm" data-handled-report={h.id}>
                  <p class="font-medium" safe>
                    {`${h.target} · ${t(reasonLabel(h.reason))}`}
                  </p>
                  <p class="text-muted" safe>
                    {t("moderation.handledBy", { resolution: t(`moderation.resolution.${h.resolution}`), operator: h.operator, date: when(view, h.reviewedAt) })}
                  </p>
                </li>
              ))}
            </ul>
          </section>
        ) : (
          ""
        )}
      </>
    </AppLayout>
  );
}
