import { Elysia } from "elysia";
import { MyReviews } from "../../../views/reviews/MyReviews";
import { ReviewScreen, type ReviewFormState, type ReviewSubject } from "../../../views/reviews/ReviewScreen";
import { context, requestState, type FormScreen } from "../../context";
import { type Deps } from "../../deps";
import { type DomainError } from "../../../lib/domain-error";
import { json } from "../../../lib/http";
import type { MessageKey } from "../../../lib/i18n";
import { bookingIdOf, readStars, reviewBody, reviewQuery } from "../../reviews/input";
import { reviewsOf, writtenReviews } from "../../reviews/queries";
import { reviewTarget, submitReview, type ReviewTarget } from "../../reviews/service";
import { participantBooking } from "../../bookings/service";

const subjectOf = (target: ReviewTarget): ReviewSubject => ({
  bookingId: target.booking.id,
  role: target.role,
  otherId: target.other.id,
  otherName: target.other.firstName ?? "",
  activityTitle: target.activityTitle,
});

/** The spec's toast title of a refused review: "Please add a rating" for a missing one, "Error Submitting Review" otherwise. */
const titleOf = (err: DomainError): MessageKey => (err.key === "reviews.ratingRequiredBody" ? "reviews.ratingRequired" : "reviews.submitError");

/** Reviews: the review screen and its form, `POST /api/reviews` (spec §7), and the person's own reviews. */
export function reviewRoutes(deps: Deps) {
  /** The booking to review, for one of its two sides; anyone else gets 404 (ARCHITECTURE decision 11). */
  const targetFor = async (userId: string, bookingId: string | undefined) => reviewTarget(deps, userId, await participantBooking(deps, userId, bookingId));

  /** A refused review form is shown again with what was typed, or "not found" for someone else's booking. */
  const reviewForm: FormScreen = async ({ sent, error }, { state, user, render }) => {
    const target = error.status === 404 || !user ? null : await targetFor(user.id, typeof sent.bookingId === "string" ? sent.bookingId : undefined).catch(() => null);
    if (!target) return render((view) => <ReviewScreen view={view} subject={null} />, { status: 404 });
    const stars = readStars(sent.stars);
    const form: ReviewFormState = {
      stars: typeof stars === "number" ? stars : undefined,
      text: typeof sent.text === "string" ? sent.text : "",
      error: { title: state.t(titleOf(error)), body: state.t(error.key) },
    };
    return render((view) => <ReviewScreen view={view} subject={subjectOf(target)} form={form} />, { status: error.status });
  };

  /**
   * The booking first: someone else's is 404 whatever else is sent (ARCHITECTURE decision 11), so
   * it is looked up before the route's schema reads the review (a route's `transform` runs first).
   */
  const targets = new WeakMap<Request, ReviewTarget>();
  const bookingFirst = async ({ request, body }: { request: Request; body: unknown }) => {
    const { user } = await requestState(deps, request);
    if (user) targets.set(request, await targetFor(user.id, bookingIdOf(body)));
  };
  const targetOf = async (request: Request, userId: string, bookingId: string | undefined) => targets.get(request) ?? (await targetFor(userId, bookingId));

  return new Elysia({ name: "offline.reviews", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .post("/api/reviews", async ({ body, user, request }) => {
      const target = await targetOf(request, user.id, body.bookingId);
      return json((await submitReview(deps, user.id, target, body)).review, 201);
    }, { transform: bookingFirst, body: reviewBody })
    // The role comes from the booking itself; `userType` in the address (spec) only names it.
    .get("/review", async ({ query, user, render }) => {
      const target = await targetFor(user.id, query.bookingId).catch(() => null);
      if (!target) return render((view) => <ReviewScreen view={view} subject={null} />, { status: 404 });
      const refusal = target.refusal?.key;
      return render((view) => <ReviewScreen view={view} subject={subjectOf(target)} refusal={refusal && view.t(refusal)} />);
    }, { query: reviewQuery })
    .post("/review", async ({ body, user, request, sendTo }) => {
      const target = await targetOf(request, user.id, body.bookingId);
      await submitReview(deps, user.id, target, body);
      return sendTo("/bookings", { title: "reviews.submitted", body: "reviews.submittedBody", variant: "success" });
    }, { transform: bookingFirst, body: reviewBody, refused: { title: titleOf, screen: reviewForm } })
    .get("/reviews", async ({ user, render }) => {
      const [received, written] = await Promise.all([reviewsOf(deps.db, user.id), writtenReviews(deps, user.id)]);
      return render((view) => <MyReviews view={view} received={received} written={written} />);
    });
}
