import type { View } from "../../src/shell/view";
import { formatExpiry, type ExportStatus } from "../../src/account/export";
import { CardSection } from "../components/CardSection";
import { ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";

/**
 * Settings → "Your data" (docs/decisions/0056): what the copy holds and "Download my data", a
 * plain form post that answers the file itself (the browser saves it and the page stays), or
 * comes back here saying the copy is being prepared and its link will be emailed.
 */
export function DataExportCard({ view, status }: { view: View; status: ExportStatus }) {
  const { t } = view;
  return (
    <CardSection id="data-export" title={t("dataExport.title")} cardClass="card flex flex-col items-start gap-3 p-4">
      <>
        <p class="text-sm text-muted" safe>
          {t("dataExport.intro")}
        </p>
        {status.state === "preparing" ? (
          <p class="text-sm font-medium" role="status" data-export-status="preparing" safe>
            {t("dataExport.preparing")}
          </p>
        ) : status.state === "ready" ? (
          <p class="text-sm font-medium" role="status" data-export-status="ready" safe>
            {t("dataExport.ready", { date: formatExpiry(status.expiresAt, view.locale) })}
          </p>
        ) : (
          ""
        )}
        <form method="post" action="/settings/data-export">
          <input type="hidden" name="_csrf" value={view.csrf} />
          <button type="submit" class="btn btn-secondary" disabled={status.state === "preparing"} safe>
            {t("dataExport.download")}
          </button>
        </form>
      </>
    </CardSection>
  );
}

/** The emailed link's page: "Download the file" (a form post, so a mail program's link check never uses the link up). */
export function ExportLinkPage({ view, token, expiresAt }: { view: View; token: string; expiresAt: number }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("dataExport.linkTitle")}>
      <>
        <ScreenHeader view={view} title={t("dataExport.linkTitle")} back="/settings" />
        <div class="card flex flex-col items-start gap-3 p-4">
          <p safe>{t("dataExport.linkBody")}</p>
          <p class="text-sm text-muted" safe>
            {t("dataExport.linkExpires", { date: formatExpiry(expiresAt, view.locale) })}
          </p>
          <form method="post" action={`/account/export/${encodeURIComponent(token)}`}>
            <input type="hidden" name="_csrf" value={view.csrf} />
            <button type="submit" class="btn btn-primary" safe>
              {t("dataExport.linkAction")}
            </button>
          </form>
        </div>
      </>
    </AppLayout>
  );
}

/** A link used, expired, or not this person's: one answer for all, and the way to a new copy. */
export function ExportLinkGone({ view }: { view: View }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("dataExport.linkGoneTitle")}>
      <>
        <ScreenHeader view={view} title={t("dataExport.linkGoneTitle")} back="/settings" />
        <div class="card flex flex-col items-start gap-3 p-4">
          <p safe>{t("dataExport.linkGone")}</p>
          <a href="/settings#data-export" class="btn btn-primary" safe>
            {t("dataExport.backToSettings")}
          </a>
        </div>
      </>
    </AppLayout>
  );
}
