import type { Activity } from "../../db/schema";
import type { View } from "../../src/shell/view";
import { AvailabilityFieldset, type AvailabilityValues } from "../activities/Availability";
import { FormAlert, ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";

/**
 * /host/availability/activities/{id}: one activity's week, notice, horizon and instant booking,
 * from the Availability screen. A plain form (the same fields as the create form), so it works
 * by keyboard and without JavaScript.
 */
export function ActivityHoursScreen({ view, activity, values, errors, hoursDay }: { view: View; activity: Activity; values: AvailabilityValues; errors: Record<string, string>; hoursDay?: number }) {
  const { t } = view;
  const first = Object.values(errors)[0];
  return (
    <AppLayout view={view} title={t("availability.editHours", { title: activity.title })}>
      <>
        <ScreenHeader view={view} title={t("availability.editHoursShort")} back="/host/availability" />
        <p class="mb-4 font-semibold" safe>
          {activity.title}
        </p>
        <form method="post" action={`/host/availability/activities/${activity.id}`} class="card flex flex-col gap-4 p-4" data-activity-hours-form>
          <input type="hidden" name="_csrf" value={view.csrf} />
          <FormAlert body={first} />
          <AvailabilityFieldset view={view} values={values} errors={errors} hoursDay={hoursDay} />
          <button type="submit" class="btn btn-primary w-full" safe>
            {t("availability.saveHours")}
          </button>
        </form>
      </>
    </AppLayout>
  );
}
