import { Elysia } from "elysia";
import { AccountDeletedScreen, DeleteAccountScreen, type DeleteAccountState } from "../../../views/account/DeleteAccount";
import { AdminDeletions, type AdminDeletionsState } from "../../../views/account/AdminDeletions";
import { context, type FormScreen } from "../../context";
import type { Deps, RequestState } from "../../deps";
import { json, redirectTo, serializeCookie, wantsJson } from "../../../lib/http";
import { isDomainError } from "../../../lib/domain-error";
import { accountByEmail, AccountHasOpenItems, deleteAccount, deletionLog, OPEN_ITEM_TEXT, openItems, type OpenItem } from "../../account/delete";
import { deletionConfirmationSchema, operatorDeletionSchema } from "../../account/delete-input";
import { awaitsOperatorVerification, isOperator } from "../../reports/moderation";
import { verifyFirstAnswer } from "../reports/routes";
import { notFoundAnswer } from "../shell/routes";
import { SIGNED_OUT_HEADERS } from "../auth/routes";
import { z } from "zod";

/** The open items of a refusal, for the API: each with the sentence the screen shows. */
const openItemsSaid = (state: RequestState, open: OpenItem[]) => open.map((item) => ({ ...item, message: state.t(OPEN_ITEM_TEXT[item.kind], { activity: item.activityTitle }) }));

/**
 * Deleting an account (docs/decisions/0057): the person's own screen (`/settings/delete-account`)
 * and `POST /api/account/delete`, the operators' `/admin/deletions` (declared public, like the
 * other admin screens, so that anyone else gets the same 404 as for an unknown address), and the
 * page a deleted person lands on.
 */
export function deleteRoutes(deps: Deps) {
  /** The answer that ends the deleted person's browser session: the cookie cleared, the browser's copies dropped. */
  const signedOut = () => {
    const headers = new Headers(SIGNED_OUT_HEADERS);
    headers.append("Set-Cookie", serializeCookie(deps.cookies.session, "", { maxAge: 0, secure: deps.config.secureCookies }));
    return headers;
  };

  /** A refused deletion from the screen: drawn again with why, and what is open with its links. */
  const screenRefused: FormScreen = async ({ sent, error, message, fields }, { user, render }) => {
    if (!user) return undefined;
    const open = error instanceof AccountHasOpenItems ? error.open : await openItems(deps.db, user.id, deps.now());
    const state: DeleteAccountState = { open, email: typeof sent.email === "string" ? sent.email : undefined, errors: fields, alert: Object.keys(fields).length ? undefined : message };
    return render((view) => <DeleteAccountScreen view={view} user={user} state={state} />, { status: error.status });
  };

  const adminPage = async (state: RequestState, render: Parameters<FormScreen>[1]["render"], page: AdminDeletionsState, status = 200) => {
    const log = await deletionLog(deps.db);
    return render((view) => <AdminDeletions view={view} state={page} log={log} />, { status });
  };

  /** The operator's gate: a listed address not verified yet is told to verify it; anyone else gets a 404. */
  const operatorGate = async (request: Request, state: RequestState, render: Parameters<FormScreen>[1]["render"]): Promise<Response | null> => {
    if (awaitsOperatorVerification(deps, state.user)) return await verifyFirstAnswer(request, state, render);
    if (!isOperator(deps, state.user)) return await notFoundAnswer(request, state, render);
    return null;
  };

  return new Elysia({ name: "offline.account.delete", seed: deps.id })
    .use(context(deps))
    .get("/settings/delete-account", async ({ user, render }) => {
      const open = await openItems(deps.db, user.id, deps.now());
      return render((view) => <DeleteAccountScreen view={view} user={user} state={{ open }} />);
    }, { signedIn: true })
    .post("/settings/delete-account", async ({ request, body, user, state }) => {
      await deleteAccount(deps, user, { by: "self", confirmation: body }, state.locale);
      return redirectTo(request, "/account-deleted", signedOut());
    }, { signedIn: true, body: deletionConfirmationSchema, refused: { screen: screenRefused } })
    .post("/api/account/delete", async ({ body, user, state }) => {
      try {
        const id = await deleteAccount(deps, user, { by: "self", confirmation: body }, state.locale);
        return json({ deleted: true, id }, 200, signedOut());
      } catch (err) {
        // What to finish first, each in the caller's words as the screen says it, with its link.
        if (err instanceof AccountHasOpenItems) return json({ message: state.t(err.key), open: openItemsSaid(state, err.open) }, err.status);
        throw err;
      }
    }, { signedIn: true, body: deletionConfirmationSchema })
    .get("/account-deleted", ({ render }) => render((view) => <AccountDeletedScreen view={view} />), { public: true })
    .get("/admin/deletions", async ({ request, query, state, render }) => {
      const gate = await operatorGate(request, state, render);
      if (gate) return gate;
      const email = typeof query.email === "string" ? query.email.trim().toLowerCase().slice(0, 320) : "";
      if (!email) return adminPage(state, render, {});
      const found = await accountByEmail(deps.db, email);
      if (wantsJson(request)) return json({ found: Boolean(found), open: found ? openItemsSaid(state, await openItems(deps.db, found.id, deps.now())) : [] }, found ? 200 : 404);
      if (!found || !found.email) return adminPage(state, render, { email, found: null }, 404);
      return adminPage(state, render, { email, found: { email: found.email }, open: await openItems(deps.db, found.id, deps.now()) });
    }, { public: true, query: z.object({ email: z.string().max(400).optional() }) })
    .get("/api/admin/deletions", async ({ request, state, render }) => {
      const gate = await operatorGate(request, state, render);
      if (gate) return gate;
      return json({ deletions: await deletionLog(deps.db) });
    }, { public: true })
    .post("/admin/deletions", async ({ request, body, state, render, sendTo }) => {
      const gate = await operatorGate(request, state, render);
      if (gate) return gate;
      const operator = state.user!;
      const found = await accountByEmail(deps.db, body.email);
      if (!found || !found.email) {
        if (wantsJson(request)) return json({ message: state.t("deletion.admin.notFound") }, 404);
        return adminPage(state, render, { email: body.email, found: null }, 404);
      }
      if (found.id === operator.id) {
        if (wantsJson(request)) return json({ message: state.t("deletion.admin.notYourself") }, 400);
        return adminPage(state, render, { email: body.email, found: { email: found.email }, error: state.t("deletion.admin.notYourself") }, 400);
      }
      try {
        const id = await deleteAccount(deps, found, { by: "operator", operatorId: operator.id }, state.locale);
        if (wantsJson(request)) return json({ deleted: true, id });
        return sendTo("/admin/deletions", { title: "deletion.admin.title", body: "deletion.admin.done", variant: "success" });
      } catch (err) {
        if (!isDomainError(err) || wantsJson(request)) throw err;
        const open = err instanceof AccountHasOpenItems ? err.open : [];
        return adminPage(state, render, { email: body.email, found: { email: found.email }, open, error: state.t(err.key) }, err.status);
      }
    }, { public: true, body: operatorDeletionSchema });
}
