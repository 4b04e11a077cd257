import type { View } from "../../src/shell/view";
import { CardSection } from "../components/CardSection";

/**
 * The private calendar feed (docs/decisions/0037), on Settings for everyone and on the host's
 * Availability screen. Off: one line and "Turn on calendar feed". On: the link in a read-only
 * field (select it to copy; with JavaScript the Copy button does it, islands/shell/copy.ts), how
 * to subscribe, "Reset link" and "Turn off". Every button is a plain form post: it works without
 * JavaScript, and brings the person back to the page it was on.
 */
export function CalendarFeedCard({ view, feed }: { view: View; feed: { url: string | null } }) {
  const { t } = view;
  const action = (value: "on" | "reset" | "off", label: string, style: string) => (
    <form method="post" action="/settings/calendar-feed">
      <input type="hidden" name="_csrf" value={view.csrf} />
      <input type="hidden" name="next" value={view.path} />
      <input type="hidden" name="action" value={value} />
      <button type="submit" class={`btn ${style}`} safe>
        {label}
      </button>
    </form>
  );
  return (
    <CardSection id="calendar-feed" title={t("availability.feed.title")} cardClass="card flex flex-col items-start gap-3 p-4">
      <>
        {feed.url ? (
          <>
            <div class="field w-full">
              <label class="field-label" for="calendar-feed-url" safe>
                {t("availability.feed.urlLabel")}
              </label>
              <div class="flex w-full gap-2">
                <input id="calendar-feed-url" class="input min-w-0 flex-1 font-mono text-sm" type="text" readonly value={feed.url} aria-describedby="calendar-feed-hint" />
                <button
                  type="button"
                  class="btn btn-secondary shrink-0"
                  data-copy={feed.url}
                  data-copied-text={t("availability.feed.copied")}
                  data-copy-failed-text={t("availability.feed.copyFailed")}
                  safe
                >
                  {t("availability.feed.copy")}
                </button>
              </div>
              <span id="calendar-feed-hint" class="text-xs text-muted" safe>
                {t("availability.feed.subscribeHint")}
              </span>
            </div>
            <div class="flex flex-wrap gap-2">
              {action("reset", t("availability.feed.reset"), "btn-secondary")}
              {action("off", t("availability.feed.turnOff"), "btn-ghost")}
            </div>
          </>
        ) : (
          <>
            <p class="text-sm text-muted" safe>
              {t("availability.feed.offIntro")}
            </p>
            {action("on", t("availability.feed.turnOn"), "btn-primary")}
          </>
        )}
      </>
    </CardSection>
  );
}
