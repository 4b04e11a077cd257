import { Elysia } from "elysia";
import { MyReviews } from "../../views/reviews/MyReviews";
import { ReviewScreen, type ReviewFormState, type ReviewSubject } from "../../views/reviews/ReviewScreen";
import { context } from "../context";
import { type Deps } from "../deps";
import { DomainError, isDomainError } from "../lib/domain-error";
import { asRecord, isHtmx, json } from "../lib/http";
import { firstIssue } from "../lib/validation";
import type { MessageKey } from "../texts";
import { htmlResponse } from "../shell/render";
import { readStars, reviewInput, type ReviewInput } from "./input";
import { reviewsOf, writtenReviews } from "./queries";
import { reviewTarget, submitReview, type ReviewTarget } from "./service";
import { loggable } from "../lib/faults";

const subjectOf = (target: ReviewTarget): ReviewSubject => ({
  bookingId: target.booking.id,
  role: target.role,
  otherId: target.other.id,
  otherName: target.other.firstName ?? "",
  activityTitle: target.activityTitle,
});

/** The spec's toast title of a refused review: "Please add a rating" for a missing one, "Error Submitting Review" otherwise. */
const titleOf = (err: DomainError): MessageKey => (err.key === "reviews.ratingRequiredBody" ? "reviews.ratingRequired" : "reviews.submitError");

/** The review sent, checked (`reviewInput`); a refusal is a 400 `DomainError` with its field's message. */
function parseReview(body: unknown): ReviewInput {
  const input = reviewInput.safeParse(asRecord(body));
  if (!input.success) throw new DomainError(firstIssue(input.error), 400);
  return input.data;
}

/** The booking asked about in an address: text, or nothing. */
const bookingIdOf = (value: unknown) => (typeof value === "string" ? value : undefined);

/** Reviews: the review screen and its form, `POST /api/reviews` (spec §7), and the person's own reviews. */
export function reviewRoutes(deps: Deps) {

  return new Elysia({ name: "offline.reviews", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    // The booking first: someone else's is 404 whatever else is sent (ARCHITECTURE decision 11).
    .post("/api/reviews", async ({ body, user }) => {
      const sent = asRecord(body);
      const target = await reviewTarget(deps, user.id, bookingIdOf(sent.bookingId));
      return json((await submitReview(deps, user.id, target, parseReview(sent))).review, 201);
    })
    // The role comes from the booking itself; `userType` in the address (spec) only names it.
    .get("/review", async ({ query, user, render }) => {
      let target: ReviewTarget;
      try {
        target = await reviewTarget(deps, user.id, query.bookingId);
      } catch (err) {
        if (isDomainError(err)) return render((view) => <ReviewScreen view={view} subject={null} />, { status: 404 });
        throw err;
      }
      const refusal = target.refusal?.key;
      return render((view) => <ReviewScreen view={view} subject={subjectOf(target)} refusal={refusal && view.t(refusal)} />);
    })
    .post("/review", async ({ body, user, request, state, render, sendTo, toastHeader }) => {
      const sent = asRecord(body);
      let target: ReviewTarget | undefined;
      try {
        target = await reviewTarget(deps, user.id, bookingIdOf(sent.bookingId));
        await submitReview(deps, user.id, target, parseReview(sent));
        return sendTo("/bookings", { title: "reviews.submitted", body: "reviews.submittedBody", variant: "success" });
      } catch (err) {
        if (!isDomainError(err)) {
          if (!isHtmx(request)) throw err;
          // htmx keeps the form as typed; the toast says what the spec says for the unforeseen.
          console.error(`POST /review failed: ${loggable(err)}`);
          return htmlResponse("", 500, toastHeader({ title: "reviews.submitError", body: "reviews.somethingWrong", variant: "error" }));
        }
        if (isHtmx(request)) return htmlResponse("", err.status, toastHeader({ title: titleOf(err), body: err.key, variant: "error" }));
        // The form is shown again with what was typed, or "not found" for someone else's booking.
        if (!target || err.status === 404) return render((view) => <ReviewScreen view={view} subject={null} />, { status: 404 });
        const subject = subjectOf(target);
        const stars = readStars(sent.stars);
        const form: ReviewFormState = {
          stars: typeof stars === "number" ? stars : undefined,
          text: typeof sent.text === "string" ? sent.text : "",
          error: { title: state.t(titleOf(err)), body: state.t(err.key) },
        };
        return render((view) => <ReviewScreen view={view} subject={subject} form={form} />, { status: err.status });
      }
    })
    .get("/reviews", async ({ user, render }) => {
      const [received, written] = await Promise.all([reviewsOf(deps.db, user.id), writtenReviews(deps, user.id)]);
      return render((view) => <MyReviews view={view} received={received} written={written} />);
    });
}
