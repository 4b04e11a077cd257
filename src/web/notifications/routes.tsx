import { Elysia } from "elysia";
import { UnsubscribeConfirm, Unsubscribed, UnsubscribeInvalid } from "../../../views/email/Unsubscribe";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { readUnsubscribeToken } from "../../email/unsubscribe";
import { isDeletedAccount } from "../../account/delete";
import { NotFound } from "../../../views/shell/NotFound";
import { preferencesForm, unsubscribeLinkQuery } from "../../notifications/input";
import { PREFERENCE_KEYS } from "../../notifications/rules";
import { changePreferences, unsubscribeFromEmails } from "../../notifications/service";

/** The Settings card's notification form without JavaScript (the switches use `notificationApi`). */
export function notificationRoutes(deps: Deps) {
  return new Elysia({ name: "offline.notifications", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .post("/settings/notifications", async ({ user, body, sendTo }) => {
      await changePreferences(deps, user.id, body);
      return sendTo("/settings", { title: "notifications.saved" });
    }, { body: preferencesForm });
}

/**
 * The one-click unsubscribe of every notification email (docs/decisions/0034, RFC 8058).
 * `GET /email/unsubscribe?t=…` asks; `POST` to the same address turns that preference off,
 * whether from the page's button or from a mail program's own "Unsubscribe"
 * (`List-Unsubscribe=One-Click`, no cookies): the signed token (src/email/unsubscribe.ts) is the
 * proof, so both are public. One preference governs push and email alike, and the pages say so.
 */
export function unsubscribeRoutes(deps: Deps) {
  return new Elysia({ name: "offline.notifications.unsubscribe", seed: deps.id })
    .use(context(deps))
    .guard({ public: true })
    .get("/email/unsubscribe", async ({ query, render }) => {
      const token = readUnsubscribeToken(deps, query.t, PREFERENCE_KEYS);
      if (!token) return render((view) => <UnsubscribeInvalid view={view} />, { status: 400 });
      // A deleted account's old links lead nowhere (docs/decisions/0057).
      if (await isDeletedAccount(deps.db, token.userId)) return render((view) => <NotFound view={view} />, { status: 404 });
      const action = `/email/unsubscribe?t=${encodeURIComponent(query.t)}`;
      return render((view) => <UnsubscribeConfirm view={view} kind={view.t(`notifications.type.${token.kind}`)} action={action} />);
    }, { query: unsubscribeLinkQuery })
    .post("/email/unsubscribe", async ({ query, render }) => {
      const token = readUnsubscribeToken(deps, query.t, PREFERENCE_KEYS);
      if (!token) return render((view) => <UnsubscribeInvalid view={view} />, { status: 400 });
      if (await isDeletedAccount(deps.db, token.userId)) return render((view) => <NotFound view={view} />, { status: 404 });
      await unsubscribeFromEmails(deps, token.userId, token.kind);
      return render((view) => <Unsubscribed view={view} kind={view.t(`notifications.type.${token.kind}`)} />);
    }, { query: unsubscribeLinkQuery });
}
