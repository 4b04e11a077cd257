import { Elysia } from "elysia";
import { AdminPayments } from "../../../views/payments/AdminPayments";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { json, wantsJson } from "../../../lib/http";
import { uuidLike } from "../../../lib/validation";
import { awaitsOperatorVerification, isOperator } from "../../reports/moderation";
import { verifyFirstAnswer } from "../reports/routes";
import { notFoundAnswer } from "../shell/routes";
import { clearPaymentIssue, paymentsNeedingAttention } from "../../bookings/reconciliation";

/**
 * The operators' `/admin/payments` (docs/decisions/0028): what the reconciliation with the payment
 * provider flagged, and timed work that gave up. Declared public, like `/admin/reports`, so that
 * anyone who is not an operator gets the same 404 as for an unknown address.
 */
export function adminPaymentRoutes(deps: Deps) {

  return new Elysia({ name: "offline.admin-payments", seed: deps.id })
    .use(context(deps))
    .get(
      "/admin/payments",
      async ({ request, state, render }) => {
        // A listed operator whose address is not verified yet is told to verify it (decision 0034).
        if (awaitsOperatorVerification(deps, state.user)) return verifyFirstAnswer(request, state, render);
        if (!isOperator(deps, state.user)) return notFoundAnswer(request, state, render);
        const { flagged, failed } = await paymentsNeedingAttention(deps);
        if (wantsJson(request)) return json({ flagged, failed });
        return render((view) => <AdminPayments view={view} flagged={flagged} failed={failed} />);
      },
      { public: true },
    )
    .post(
      "/admin/payments/:id/clear",
      async ({ params, request, state, render, sendTo }) => {
        if (awaitsOperatorVerification(deps, state.user)) return verifyFirstAnswer(request, state, render);
        if (!isOperator(deps, state.user) || !uuidLike(params.id)) return notFoundAnswer(request, state, render);
        const cleared = await clearPaymentIssue(deps, params.id);
        if (wantsJson(request)) return json({ ok: cleared }, cleared ? 200 : 404);
        return sendTo("/admin/payments", { title: "payments.admin.title", body: "payments.admin.cleared", variant: "success" });
      },
      { public: true },
    );
}
