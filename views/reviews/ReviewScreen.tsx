import { REVIEW_TEXT_MAX } from "../../shared/limits";
import type { ReviewRole } from "../../src/reviews/service";
import type { View } from "../../src/shell/view";
import { CharacterCounter, FormAlert, ScreenHeader } from "../components/Fields";
import { AppLayout } from "../layouts/AppLayout";
import { shownName } from "../components/People";

/** Who and what the review screen is about. */
export interface ReviewSubject {
  bookingId: string;
  role: ReviewRole;
  otherId: string;
  otherName: string;
  activityTitle: string;
}

/** What the form shows again after a refusal: the stars and text sent, and why it failed. */
export interface ReviewFormState {
  stars?: number;
  text?: string;
  error?: { title: string; body: string };
}

/**
 * /review?bookingId=…&userType=guest|host (spec §2 "Review screen"): the activity, "Rate your
 * experience with {name}", five stars and an optional comment. The stars are radio inputs (one
 * group, arrow keys move between them, each named "n out of 5 stars"), drawn as stars by the
 * stylesheet, so the form works without JavaScript; with it, htmx sends it and a refusal comes
 * back as a toast while the form keeps what was typed.
 */
export function ReviewScreen({ view, subject, refusal, form = {} }: { view: View; subject: ReviewSubject | null; refusal?: string; form?: ReviewFormState }) {
  const { t } = view;
  if (!subject) {
    return (
      <AppLayout view={view} title={t("reviews.bookingNotFound")}>
        <section class="flex min-h-[60vh] flex-col items-center justify-center text-center">
          <h1 class="text-2xl font-bold" safe>
            {t("reviews.bookingNotFound")}
          </h1>
          <a href="/bookings" class="btn btn-primary mt-6" safe>
            {t("reviews.backToBookings")}
          </a>
        </section>
      </AppLayout>
    );
  }
  const text = form.text ?? "";
  return (
    <AppLayout view={view} title={t("reviews.leaveReview")}>
      <>
        <ScreenHeader view={view} title={t("reviews.leaveReview")} back="/bookings" />
        <p class="mb-4 text-lg font-semibold" data-activity-title safe>
          {subject.activityTitle}
        </p>
        {refusal ? (
          <div class="card p-5">
            <p role="status" safe>
              {refusal}
            </p>
            <div class="mt-4 flex flex-wrap gap-2">
              <a href="/bookings" class="btn btn-secondary" safe>
                {t("reviews.backToBookings")}
              </a>
              <a href="/reviews" class="btn btn-ghost" safe>
                {t("reviews.seeReviews")}
              </a>
            </div>
          </div>
        ) : (
          <form
            method="post"
            action="/review"
            class="review-form card flex flex-col gap-5 p-5"
            data-validate
            hx-post="/review"
            hx-swap="none"
            hx-disabled-elt="find button[type=submit]"
          >
            <input type="hidden" name="_csrf" value={view.csrf} />
            <input type="hidden" name="bookingId" value={subject.bookingId} />
            <input type="hidden" name="reviewedUserId" value={subject.otherId} />
            <input type="hidden" name="userType" value={subject.role} />
            <fieldset class="star-rating">
              <legend class="mb-2 font-medium" safe>
                {t("reviews.rateExperience", { name: shownName(view, subject.otherName) })}
              </legend>
              <div class="flex gap-1">
                {[1, 2, 3, 4, 5].map((n) => (
                  <>
                    <input type="radio" id={`stars-${n}`} name="stars" value={String(n)} class="sr-only" required checked={form.stars === n} />
                    <label for={`stars-${n}`} class="star">
                      <span aria-hidden="true">★</span>
                      <span class="sr-only" safe>
                        {t("reviews.starsLabel", { stars: n })}
                      </span>
                    </label>
                  </>
                ))}
              </div>
              <p class="rating-hint mt-2 text-sm text-muted" safe>
                {t("reviews.ratingRequiredBody")}
              </p>
            </fieldset>
            <div class="field">
              <label class="field-label" for="review-text" safe>
                {t("reviews.comment")}
              </label>
              <textarea
                id="review-text"
                name="text"
                class="input"
                rows="5"
                maxlength={String(REVIEW_TEXT_MAX)}
                placeholder={t("reviews.commentHint")}
                data-counter="review-count"
                aria-describedby="review-count"
                safe
              >
                {text}
              </textarea>
              <CharacterCounter view={view} id="review-count" count={text.length} max={REVIEW_TEXT_MAX} />
            </div>
            <p class="text-sm text-muted" safe>
              {t("reviews.doubleBlind", { name: shownName(view, subject.otherName) })}
            </p>
            <FormAlert title={form.error?.title} body={form.error?.body} />
            <button type="submit" class="btn btn-primary btn-lg w-full" data-needs-valid data-busy-text={t("reviews.submitting")} safe>
              {t("reviews.submit")}
            </button>
          </form>
        )}
      </>
    </AppLayout>
  );
}
