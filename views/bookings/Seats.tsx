import type { HostSession } from "../../src/bookings/queries";
import type { View } from "../../src/shell/view";

/**
 * A group booking's parts on the host's screens (docs/decisions/0049): its spots, whether it is a
 * private group, and its session's roster.
 */

/** "5 of 8 · min 4": the spots a session holds, of its capacity, and its minimum to run. */
export function rosterText(view: Pick<View, "t">, session: Pick<HostSession, "taken" | "capacity" | "minToRun">) {
  const counts = { taken: session.taken, capacity: session.capacity };
  return session.minToRun ? view.t("activity.rosterMin", { ...counts, min: session.minToRun }) : view.t("activity.roster", counts);
}

/** "3 spots", and "Private group" when the booking takes the session whole. */
export function SpotsLine({ view, spots, privateGroup }: { view: View; spots: number; privateGroup: boolean }) {
  return (
    <span class="inline-flex flex-wrap items-center gap-1.5" data-spots={String(spots)}>
      <span safe>{view.t("booking.spotsCount", { n: spots })}</span>
      {privateGroup ? (
        <span class="rounded-full bg-brand-50 px-2 py-0.5 text-xs font-medium text-brand-700 dark:bg-brand-900/40 dark:text-brand-100" data-private-group safe>
          {view.t("booking.privateGroupBadge")}
        </span>
      ) : (
        ""
      )}
    </span>
  );
}

