import type { FlaggedBooking } from "../../src/bookings/reconciliation";
import { intlLocale } from "../../lib/intl";
import { formatMoney } from "../../lib/money";
import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { ListSection } from "../components/ListSection";
import { AppLayout } from "../layouts/AppLayout";

export interface FailedJob {
  id: string;
  kind: string;
  key: string | null;
  attempts: number;
  lastError: string | null;
  failedAt: number | null;
}

const when = (view: View, epochMs: number) => new Date(epochMs).toLocaleString(intlLocale(view.locale), { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }) + " UTC";

/**
 * /admin/payments, for operators only (docs/decisions/0028): bookings the reconciliation found
 * different from the payment provider and could not repair, each with what differs and a way to
 * mark it handled, and the timed work that gave up after its last attempt.
 */
export function AdminPayments({ view, flagged, failed }: { view: View; flagged: FlaggedBooking[]; failed: FailedJob[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("payments.admin.title")}>
      <>
        <ScreenHeader view={view} title={t("payments.admin.title")} />
        <p class="mb-4 text-sm text-muted" safe>
          {t("payments.admin.intro")}
        </p>
        <p class="mb-4 text-sm">
          <a href="/admin/reports" class="link" safe>
            {t("moderation.title")}
          </a>
        </p>
        <ListSection
          id="flagged-bookings"
          class="mb-6"
          title={t("payments.admin.flagged")}
          empty={t("payments.admin.noneFlagged")}
          items={flagged.map((b) => (
            <li class="card flex flex-col gap-2 p-4" data-booking-id={b.id}>
              <p class="break-all font-semibold" safe>
                {t("payments.admin.booking", { id: b.id, status: b.status, amount: formatMoney(b.totalCents, view.locale, { currency: b.currency }) })}
              </p>
              <p class="break-words text-sm" safe>
                {b.issue}
              </p>
              <p class="break-all text-xs text-muted" safe>
                {`${b.paymentIntentId ?? ""} · ${when(view, b.updatedAt)}`}
              </p>
              <form method="post" action={`/admin/payments/${b.id}/clear`}>
                <input type="hidden" name="_csrf" value={view.csrf} />
                <button type="submit" class="btn btn-secondary text-sm" safe>
                  {t("payments.admin.clear")}
                </button>
              </form>
            </li>
          ))}
        />
        <ListSection
          id="failed-jobs"
          title={t("payments.admin.failedJobs")}
          empty={t("payments.admin.noneFailed")}
          items={failed.map((j) => (
            <li class="card flex flex-col gap-1 p-4" data-job-id={j.id}>
              <p class="break-all font-semibold" safe>
                {j.key ?? j.kind}
              </p>
              <p class="text-xs text-muted" safe>
                {t("payments.admin.attempts", { count: j.attempts, date: when(view, j.failedAt ?? 0) })}
              </p>
              {j.lastError ? (
                <p class="whitespace-pre-line break-words rounded-lg bg-sunken p-3 text-sm" safe>
                  {j.lastError}
                </p>
              ) : (
                ""
              )}
            </li>
          ))}
        />
      </>
    </AppLayout>
  );
}
