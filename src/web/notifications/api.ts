import { Elysia } from "elysia";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json } from "../../../lib/http";
import { parseBody as parse } from "../../../lib/validation";
import { preferenceChange, subscriptionInput, testInput, unsubscribeInput } from "../../notifications/input";
import { sendTest } from "../../notifications/notices";
import { changePreferences, preferencesOf, subscribe, unsubscribe } from "../../notifications/service";

/**
 * The notification calls of spec §7: preferences, push subscriptions and the test notification.
 * Refusals are `DomainError`s, answered by the app's error handler.
 */
export function notificationApi(deps: Deps) {
  return new Elysia({ name: "offline.notifications.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/notifications/preferences", async ({ user }) => json(await preferencesOf(deps.db, user.id)))
    .post("/api/notifications/preferences", async ({ user, body }) => json(await changePreferences(deps, user.id, body)), { body: preferenceChange })
    .get("/api/notifications/vapid-public-key", () => json({ publicKey: deps.secrets.vapidPublicKey }))
    .post("/api/notifications/subscribe", async ({ user, body, request, state }) => {
      const outcome = await subscribe(deps, user.id, body, { userAgent: request.headers.get("user-agent"), locale: state.locale });
      return json({ subscribed: true }, outcome === "created" ? 201 : 200);
    }, { body: subscriptionInput })
    .post("/api/notifications/unsubscribe", async ({ user, body }) => {
      await unsubscribe(deps, user.id, body.endpoint);
      return json({ subscribed: false });
    }, { body: unsubscribeInput })
    .post("/api/notifications/test", async ({ user, body, state }) => {
      const now = deps.now();
      // Counted before anything is sent, whatever comes of it: tests sent together are no more than
      // the limit. Refused text counts too, so the body is read here, once counted, rather than
      // declared on the route (which would read it first).
      const wait = await deps.limits.pushTestsByUser.take(user.id, now);
      if (wait > 0) throw new DomainError("error.tooMany", 429, { retryAfterMs: wait });
      const sent = await sendTest(deps, user.id, parse(testInput, body), state.locale);
      if (!sent) throw new DomainError("notifications.testFailed", 502);
      return json({ sent });
    });
}
