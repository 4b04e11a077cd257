import { zoneOfCity } from "../../lib/places";
import { formatLocal, localOf } from "../../lib/time";
import type { View } from "../../src/shell/view";
import { CardSection } from "../components/CardSection";
import { BUSY_URL_MAX } from "../../shared/limits";

export interface BusyCalendarProps {
  url: string | null;
  /** When it was last read (epoch ms), null before the first good read. */
  fetchedAt: number | null;
  /** Why the last read failed, in the host's words; null after a good one. */
  error: string | null;
  /** Busy times still ahead. */
  events: number;
}

/**
 * A host's outside busy calendar (docs/decisions/0037) on the Availability screen: the iCal
 * address with Save and Remove (plain form posts, so without JavaScript too), then when it was
 * last read and how many busy times it gave, or why it could not be read.
 */
export function BusyCalendarCard({ view, busyCalendar }: { view: View; busyCalendar: BusyCalendarProps }) {
  const { t } = view;
  const zone = zoneOfCity(view.user?.city);
  const { url, fetchedAt, error, events } = busyCalendar;
  return (
    <CardSection id="busy-calendar" title={t("availability.busy.title")} cardClass="card flex flex-col gap-3 p-4">
      <>
        <p class="text-sm text-muted" safe>
          {t("availability.busy.intro")}
        </p>
        <form method="post" action="/availability/busy-calendar" class="flex flex-col gap-3">
          <input type="hidden" name="_csrf" value={view.csrf} />
          <input type="hidden" name="next" value={view.path} />
          <div class="field">
            <label class="field-label" for="busy-calendar-url" safe>
              {t("availability.busy.urlLabel")}
            </label>
            <input
              id="busy-calendar-url"
              class="input"
              type="url"
              name="url"
              inputmode="url"
              autocomplete="off"
              spellcheck="false"
              maxlength={String(BUSY_URL_MAX)}
              value={url ?? ""}
              placeholder="https://"
              aria-describedby="busy-calendar-hint"
            />
            <span id="busy-calendar-hint" class="text-xs text-muted" safe>
              {t("availability.busy.urlHint")}
            </span>
          </div>
          <div class="flex flex-wrap gap-2">
            <button type="submit" name="action" value="save" class="btn btn-primary" safe>
              {t("availability.busy.save")}
            </button>
            {url ? (
              <button type="submit" name="action" value="remove" class="btn btn-ghost" formnovalidate safe>
                {t("availability.busy.remove")}
              </button>
            ) : (
              ""
            )}
          </div>
        </form>
        {url ? (
          error ? (
            <div role="status" class="rounded-lg bg-red-50 p-3 text-sm text-red-800 dark:bg-red-900/30 dark:text-red-100">
              <p class="font-medium" safe>
                {t("availability.busy.errorTitle")}
              </p>
              <p safe>{error}</p>
            </div>
          ) : fetchedAt ? (
            <p role="status" class="text-sm" safe>
              {t("availability.busy.fetchedAt", { when: formatLocal(localOf(fetchedAt, zone), view.locale), count: events })}
            </p>
          ) : (
            <p role="status" class="text-sm text-muted" safe>
              {t("availability.busy.waiting")}
            </p>
          )
        ) : (
          ""
        )}
      </>
    </CardSection>
  );
}
