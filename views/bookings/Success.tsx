import type { View } from "../../src/shell/view";
import { AppLayout } from "../layouts/AppLayout";

/** /booking-success: the request is on its way (spec "Booking success"). */
export function BookingSuccess({ view }: { view: View }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("success.title")}>
      <section class="mx-auto flex max-w-md flex-col items-center gap-4 py-6 text-center">
        <div class="flex h-16 w-16 items-center justify-center rounded-full bg-green-100 text-3xl text-green-700" aria-hidden="true">
          ✓
        </div>
        <h1 class="text-2xl font-bold" safe>
          {t("success.title")}
        </h1>
        <div class="card w-full p-4 text-left">
          <h2 class="mb-2 font-semibold" safe>
            {t("success.next")}
          </h2>
          <ul class="list-disc pl-5 text-sm text-muted">
            <li safe>{t("success.step1")}</li>
            <li safe>{t("success.step2")}</li>
            <li safe>{t("success.step3")}</li>
            <li safe>{t("success.step4")}</li>
          </ul>
        </div>
        <div class="flex w-full flex-col gap-2">
          <a href="/messages" class="btn btn-primary" safe>
            {t("success.viewMessages")}
          </a>
          <a href="/bookings" class="btn btn-secondary" safe>
            {t("success.viewBookings")}
          </a>
          <a href="/" class="btn btn-ghost" safe>
            {t("notFound.back")}
          </a>
        </div>
      </section>
    </AppLayout>
  );
}
