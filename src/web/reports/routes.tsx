import { Elysia } from "elysia";
import { AdminReports } from "../../../views/reports/AdminReports";
import { ReportSent } from "../../../views/reports/ReportButton";
import { VerifyNeededScreen } from "../../../views/auth/VerifyEmail";
import { context, type FormRefusal, type Render } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { isHtmx, json, wantsJson } from "../../../lib/http";
import type { MessageKey } from "../../../lib/i18n";
import { htmlResponse } from "../../shell/render";
import { notFoundAnswer } from "../shell/routes";
import { viewOf } from "../../shell/view";
import { awaitsOperatorVerification, handledReports, isOperator, moderate, pendingReports, type ModerationAction } from "../../reports/moderation";
import { moderationParams, reportBody, reportFormPage } from "../../reports/input";
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
        const report = await fileReport(deps, user.id, body.report);
        if (wantsJson(request)) return json(reportView(report), 201);
        if (isHtmx(request)) return htmlResponse(String(await (<ReportSent view={await viewOf(deps, state, request)} />)), 200, toastHeader({ title: "reports.sent", body: "reports.sentBody" }));
        return sendTo(body.page, { title: "reports.sent", body: "reports.sentBody", variant: "success" });
      },
      // The API and htmx get the app's answer (htmx's toast titled "reports.failed"); a plain form
      // goes back to its page with the refusal as a toast, and `Retry-After`.
      { onboarded: true, body: reportBody, refused: { title: "reports.failed", back: (refused: FormRefusal) => reportFormPage.parse(refused.sent) } },
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
