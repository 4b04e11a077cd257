import { one } from "../../db/client";
import { eq } from "drizzle-orm";
import { Elysia } from "elysia";
import { users } from "../../db/schema";
import { UnsubscribeConfirm, Unsubscribed, UnsubscribeInvalid } from "../../views/email/Unsubscribe";
import { context } from "../context";
import { type Deps } from "../deps";
import { changePreferences } from "../notifications/service";
import { readUnsubscribeToken } from "./unsubscribe";

/**
 * Email (docs/decisions/0034): the sending job, and the one-click unsubscribe of every
 * notification email (RFC 8058). `GET /email/unsubscribe?t=…` asks; `POST` to the same address
 * turns that preference off, whether from the page's button or from a mail program's own
 * "Unsubscribe" (`List-Unsubscribe=One-Click`, no cookies): the signed token is the proof, so
 * both are public. One preference governs push and email alike, and the pages say so.
 */
export function emailRoutes(deps: Deps) {
  return new Elysia({ name: "offline.email", seed: deps.id })
    .use(context(deps))
    .guard({ public: true })
    .get("/email/unsubscribe", ({ query, render }) => {
      const token = readUnsubscribeToken(deps, query.t);
      if (!token) return render((view) => <UnsubscribeInvalid view={view} />, { status: 400 });
      const action = `/email/unsubscribe?t=${encodeURIComponent(String(query.t))}`;
      return render((view) => <UnsubscribeConfirm view={view} kind={view.t(`notifications.type.${token.kind}`)} action={action} />);
    })
    .post("/email/unsubscribe", async ({ query, render }) => {
      const token = readUnsubscribeToken(deps, query.t);
      if (!token) return render((view) => <UnsubscribeInvalid view={view} />, { status: 400 });
      // Someone whose account is gone gets no email anyway.
      const exists = await one(deps.db.select({ id: users.id }).from(users).where(eq(users.id, token.userId)));
      if (exists) await changePreferences(deps, token.userId, { [token.kind]: false });
      return render((view) => <Unsubscribed view={view} kind={view.t(`notifications.type.${token.kind}`)} />);
    });
}
