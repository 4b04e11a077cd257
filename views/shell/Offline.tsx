import type { View } from "../../src/shell/view";
import { AppLayout } from "../layouts/AppLayout";

/**
 * What the service worker shows, offline, for a page it has not kept. It is stored when the
 * worker installs, so it holds nobody's data: no user, no CSRF token.
 */
export function OfflinePage({ view }: { view: View }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("shell.offlinePage.title")}>
      <section class="flex min-h-[60vh] flex-col items-center justify-center text-center" data-offline-page>
        <h1 class="text-2xl font-bold" safe>
          {t("shell.offlinePage.title")}
        </h1>
        <p class="mt-2 max-w-sm text-muted" safe>
          {t("shell.offlinePage.body")}
        </p>
        <div class="mt-6 flex flex-wrap justify-center gap-3">
          <a href="/bookings" class="btn btn-primary" safe>
            {t("shell.offlinePage.bookings")}
          </a>
          <button type="button" class="btn btn-secondary" data-reload safe>
            {t("shell.offlinePage.retry")}
          </button>
        </div>
      </section>
    </AppLayout>
  );
}
