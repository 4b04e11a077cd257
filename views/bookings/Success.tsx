import type { View } from "../../src/shell/view";
import type { Booking } from "../../db/schema";
import { AppLayout } from "../layouts/AppLayout";
import { policyName, RefundWindows } from "./Parts";

/**
 * /booking-success: the request is on its way (spec "Booking success"), or, for an activity that
 * books instantly (docs/decisions/0037), the booking is confirmed: `booked`, which the route
 * reads from the guest's own booking named in the address; a group session's booking says its
 * spots (`seats`). A booked one says the cancellation policy it keeps, window by window (`policy`).
 */
export function BookingSuccess({ view, booked, seats, policy }: { view: View; booked?: boolean; seats?: { spots: number; privateGroup: boolean }; policy?: Pick<Booking, "cancellationPolicy" | "startsAt" | "timeZone"> }) {
  const { t } = view;
  const instant = booked === true;
  const title = t(instant ? "success.bookedTitle" : "success.title");
  const steps = instant
    ? [t("success.bookedStep1"), t("success.bookedStep2"), t("success.bookedStep3"), t("success.bookedStep4")]
    : [t("success.step1"), t("success.step2"), t("success.step3"), t("success.step4")];
  return (
    <AppLayout view={view} title={title}>
      <section class="mx-auto flex max-w-md flex-col items-center gap-4 py-6 text-center">
        <div class="flex h-16 w-16 items-center justify-center rounded-full bg-green-100 text-3xl text-green-700" aria-hidden="true">
          ✓
        </div>
        <h1 class="text-2xl font-bold" safe>
          {title}
        </h1>
        {instant ? (
          <p class="text-muted" safe>
            {t("success.bookedBody")}
          </p>
        ) : null}
        {instant && policy ? (
          <div class="card w-full p-4 text-left text-sm" data-success-policy>
            <p class="mb-1" safe>
              {t("success.bookedPolicy", { policy: policyName(view, policy.cancellationPolicy) })}
            </p>
            <RefundWindows view={view} policy={policy.cancellationPolicy} startsAt={policy.startsAt} timeZone={policy.timeZone} />
          </div>
        ) : null}
        {seats ? (
          <p class="font-medium" data-success-spots safe>
            {seats.privateGroup ? t("success.privateGroup", { n: seats.spots }) : t("success.spots", { n: seats.spots })}
          </p>
        ) : null}
        <div class="card w-full p-4 text-left">
          <h2 class="mb-2 font-semibold" safe>
            {t("success.next")}
          </h2>
          <ul class="list-disc pl-5 text-sm text-muted">
            {steps.map((step) => (
              <li safe>{step}</li>
            ))}
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
