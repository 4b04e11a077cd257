import { Elysia } from "elysia";
import { AdminReports } from "../../../views/reports/AdminReports";
import { ReportSent } from "../../../views/reports/ReportButton";
import { VerifyNeededScreen } from "../../../views/auth/VerifyEmail";
import { context, type Render } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { isHtmx, json, waitHeaders, wantsJson } from "../../../lib/http";
import { invalidInput, isDomainError } from "../../../lib/domain-error";
import type { MessageKey } from "../../../lib/i18n";
import { htmlResponse } from "../../shell/render";
import { notFoundAnswer } from "../shell/routes";
import { viewOf } from "../../shell/view";
import { awaitsOperatorVerification, handledReports, isOperator, moderate, pendingReports, type ModerationAction } from "../../reports/moderation";
import { moderationParams, reportFormPage, reportInput, type ReportInput } from "../../reports/input";
import { fileReport, reportView } from "../../reports/service";

/**
 * A listed operator whose address is not verified yet (docs/decisions/0034): told to verify it,
 * with "Resend link", rather than the 404 everyone else gets. 403 either way: no rights yet.
 */
export function verifyFirstAnswer(request: Request, state: RequestState, render: Render) {
  const message = state.t("moderation.verifyFirst", { email: state.user?.email ?? "" });
  if (wantsJson(request) || request.method !== "GET") return json({ message }, 403);
  return render(
    (view) => <VerifyNeededScreen view={view} title={view.t("moderation.title")} body={message} next={new URL(request.url).pathname} />,
    { status: 403 },
  );
}

/**
 * The report sent, read by its schema (`reportInput`) in the handler rather than on the route, so
 * that a plain form's refusal of it is answered like the others (see `POST /api/reports`).
 */
function parseReport(body: unknown): ReportInput {
  const input = reportInput.safeParse(body);
  if (!input.success) throw invalidInput(input.error.issues);
  return input.data;
}

const ACTIONS: Record<ModerationAction, MessageKey> = {
  dismiss: "moderation.dismissedBody",
  hide: "moderation.hiddenBody",
  suspend: "moderation.suspendedBody",
};

/**
 * Reports: `POST /api/reports` (JSON, htmx or a plain form), and the operators' `/admin/reports`.
 * The admin routes are declared public so that nobody else, signed in or not, learns they exist:
 * anyone who is not an operator gets the same 404 as for an unknown address (docs/decisions/0024).
 */
export function reportRoutes(deps: Deps) {
  return new Elysia({ name: "offline.reports", seed: deps.id })
    .use(context(deps))
    .post(
      "/api/reports",
      async ({ body, user, request, state, sendTo, toastHeader }) => {
        const page = reportFormPage.parse(body);
        try {
          const report = await fileReport(deps, user.id, parseReport(body));
          if (wantsJson(request)) return json(reportView(report), 201);
          if (isHtmx(request)) return htmlResponse(String(await (<ReportSent view={await viewOf(deps, state, request)} />)), 200, toastHeader({ title: "reports.sent", body: "reports.sentBody" }));
          return sendTo(page, { title: "reports.sent", body: "reports.sentBody", variant: "success" });
        } catch (err) {
          // The API and htmx get the app's answer (htmx's toast titled by `refused`). A plain form
          // goes back to its page with the refusal as a toast, and `Retry-After`: answered here,
          // since the app's refusal hook answers every /api/ address with JSON before it reads
          // `refused.back`, and this form posts to the API's own address.
          if (!isDomainError(err) || wantsJson(request) || isHtmx(request)) throw err;
          return sendTo(page, { title: "reports.failed", body: err.key, variant: "error" }, waitHeaders(err.details.retryAfterMs));
        }
      },
      { onboarded: true, refused: { title: "reports.failed" } },
    )
    .get(
      "/admin/reports",
      async ({ request, state, render }) => {
        if (awaitsOperatorVerification(deps, state.user)) return verifyFirstAnswer(request, state, render);
        if (!isOperator(deps, state.user)) return notFoundAnswer(request, state, render);
        const [pending, handled] = await Promise.all([pendingReports(deps), handledReports(deps)]);
        return render((view) => <AdminReports view={view} pending={pending} handled={handled} />);
      },
      { public: true },
    )
    .post(
      "/admin/reports/:id/:action",
      async ({ params, request, state, render, sendTo }) => {
        const { action } = params;
        if (awaitsOperatorVerification(deps, state.user)) return verifyFirstAnswer(request, state, render);
        if (!isOperator(deps, state.user) || !action) return notFoundAnswer(request, state, render);
        await moderate(deps, state.user!, params.id, action);
        if (wantsJson(request)) return json({ ok: true });
        return sendTo("/admin/reports", { title: "moderation.done", body: ACTIONS[action], variant: "success" });
      },
      { public: true, params: moderationParams, refused: { title: "common.error", back: "/admin/reports" } },
    );
}
