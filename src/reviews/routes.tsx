import { Elysia } from "elysia";
import { MyReviews } from "../../views/reviews/MyReviews";
import { ReviewScreen, type ReviewFormState, type ReviewSubject } from "../../views/reviews/ReviewScreen";
import { context } from "../context";
import { type Deps } from "../deps";
import { asRecord, isHtmx, json } from "../lib/http";
import type { MessageKey } from "../texts";
import { htmlResponse } from "../shell/render";
import { readStars } from "./input";
import { publishJob, reviewsOf, reviewTarget, ReviewError, submitReview, writtenReviews, type ReviewInput, type ReviewTarget } from "./service";

const subjectOf = (target: ReviewTarget): ReviewSubject => ({
  bookingId: target.booking.id,
  role: target.role,
  otherId: target.other.id,
  otherName: target.other.firstName ?? "",
  activityTitle: target.activityTitle,
});

/** The spec's toast title of a refused review: "Please add a rating" for a missing one, "Error Submitting Review" otherwise. */
const titleOf = (err: ReviewError): MessageKey => (err.key === "reviews.ratingRequiredBody" ? "reviews.ratingRequired" : "reviews.submitError");

const inputOf = (body: unknown): ReviewInput => {
  const b = asRecord(body);
  return { bookingId: b.bookingId, reviewedUserId: b.reviewedUserId, stars: b.stars, text: b.text };
};

/** Reviews: the review screen and its form, `POST /api/reviews` (spec §7), and the person's own reviews. */
export function reviewRoutes(deps: Deps) {
  deps.jobs.register(publishJob as never);

  return new Elysia({ name: "offline.reviews", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .post("/api/reviews", ({ body, user, state }) => {
      try {
        const { review } = submitReview(deps, user.id, inputOf(body));
        return json(review, 201);
      } catch (err) {
        if (err instanceof ReviewError) return json({ message: state.t(err.key) }, err.status);
        throw err;
      }
    })
    // The role comes from the booking itself; `userType` in the address (spec) only names it.
    .get("/review", ({ query, user, render }) => {
      let target: ReviewTarget;
      try {
        target = reviewTarget(deps, user.id, query.bookingId);
      } catch (err) {
        if (err instanceof ReviewError) return render((view) => <ReviewScreen view={view} subject={null} />, { status: 404 });
        throw err;
      }
      const refusal = target.refusal?.key;
      return render((view) => <ReviewScreen view={view} subject={subjectOf(target)} refusal={refusal && view.t(refusal)} />);
    })
    .post("/review", ({ body, user, request, state, render, sendTo, toastHeader }) => {
      const input = inputOf(body);
      try {
        submitReview(deps, user.id, input);
        return sendTo("/bookings", { title: "reviews.submitted", body: "reviews.submittedBody", variant: "success" });
      } catch (err) {
        if (!(err instanceof ReviewError)) {
          if (!isHtmx(request)) throw err;
          // htmx keeps the form as typed; the toast says what the spec says for the unforeseen.
          console.error("POST /review failed:", err);
          return htmlResponse("", 500, toastHeader({ title: "reviews.submitError", body: "reviews.somethingWrong", variant: "error" }));
        }
        if (isHtmx(request)) return htmlResponse("", err.status, toastHeader({ title: titleOf(err), body: err.key, variant: "error" }));
        if (err.status === 404) return render((view) => <ReviewScreen view={view} subject={null} />, { status: 404 });
        const target = reviewTarget(deps, user.id, input.bookingId);
        const stars = readStars(input.stars);
        const form: ReviewFormState = {
          stars: typeof stars === "number" ? stars : undefined,
          text: typeof input.text === "string" ? input.text : "",
          error: { title: state.t(titleOf(err)), body: state.t(err.key) },
        };
        return render((view) => <ReviewScreen view={view} subject={subjectOf(target)} form={form} />, { status: err.status });
      }
    })
    .get("/reviews", async ({ user, render }) => {
      const [received, written] = await Promise.all([reviewsOf(deps.db, user.id), writtenReviews(deps, user.id)]);
      return render((view) => <MyReviews view={view} received={received} written={written} />);
    });
}
