import { ratingNumber } from "../../lib/labels";
import { intlLocale } from "../../lib/intl";
import type { ReviewView, WrittenReviewView } from "../../src/reviews/service";
import type { View } from "../../src/shell/view";
import { ScreenHeader } from "../components/Fields";
import { Avatar, ReviewList, shownName, Stars } from "../components/People";
import { AppLayout } from "../layouts/AppLayout";

/** A day as the activity's city reads it ("Dec 1, 2026"). */
const dayIn = (view: View, epochMs: number, timeZone: string) => new Date(epochMs).toLocaleDateString(intlLocale(view.locale), { dateStyle: "medium", timeZone });

/**
 * /reviews: the published reviews the person received (with their average), and the ones they
 * wrote, each saying whether it is visible yet (double-blind: "visible once {name} has reviewed
 * you or on {date}").
 */
export function MyReviews({ view, received, written }: { view: View; received: { reviews: ReviewView[]; average: number | null; total: number }; written: WrittenReviewView[] }) {
  const { t } = view;
  return (
    <AppLayout view={view} title={t("reviews.title")}>
      <>
        <ScreenHeader view={view} title={t("reviews.title")} back="/profile" />
        <section aria-labelledby="reviews-received">
          <div class="mb-2 flex items-baseline justify-between gap-2">
            <h2 id="reviews-received" class="text-lg font-semibold" safe>
              {t("reviews.received")}
            </h2>
            {received.average !== null ? (
              <span class="text-sm text-muted" safe>
                {t("reviews.average", { average: ratingNumber(received.average, view.locale), count: received.total })}
              </span>
            ) : (
              ""
            )}
          </div>
          <ReviewList view={view} reviews={received.reviews} empty={t("reviews.noneReceived")} />
        </section>
        <section class="mt-8" aria-labelledby="reviews-written">
          <h2 id="reviews-written" class="mb-2 text-lg font-semibold" safe>
            {t("reviews.written")}
          </h2>
          {written.length === 0 ? (
            <p class="card p-4 text-sm text-muted" safe>
              {t("reviews.noneWritten")}
            </p>
          ) : (
            <ul class="flex flex-col gap-3">
              {written.map((r) => (
                <li class="card p-4" data-written-review={r.id}>
                  <div class="flex items-center gap-3">
                    <Avatar photo={r.about.photo} name={r.about.name} size={36} />
                    <p class="min-w-0 flex-1 text-sm font-medium" safe>
                      {t("reviews.about", { name: shownName(view, r.about.name), activity: r.activityTitle })}
                    </p>
                    <Stars value={r.stars} label={t("reviews.starsLabel", { stars: r.stars })} />
                  </div>
                  {r.text ? (
                    <p class="mt-2 whitespace-pre-line text-sm" safe>
                      {r.text}
                    </p>
                  ) : (
                    ""
                  )}
                  <p class="mt-2 text-xs text-muted" data-visibility={r.published ? "published" : "hidden"} safe>
                    {r.visibleBy === null ? t("reviews.published") : t("reviews.hiddenUntil", { name: shownName(view, r.about.name), date: dayIn(view, r.visibleBy, r.timeZone) })}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>
      </>
    </AppLayout>
  );
}
