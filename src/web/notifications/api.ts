import { Elysia } from "elysia";
import { context, requestState } from "../../context";
import { type Deps } from "../../deps";
import { DomainError } from "../../../lib/domain-error";
import { json } from "../../../lib/http";
import { preferenceChange, subscriptionInput, testInput, unsubscribeInput } from "../../notifications/input";
import { sendTest } from "../../notifications/notices";
import { changePreferences, preferencesOf, subscribe, unsubscribe } from "../../notifications/service";

/**
 * The notification calls of spec §7: preferences, push subscriptions and the test notification.
 * Refusals are `DomainError`s, answered by the app's error handler.
 */
export function notificationApi(deps: Deps) {
  /**
   * A test notification is counted before anything is sent, whatever comes of it: tests sent
   * together are no more than the limit, and refused text counts too. So it is counted in the
   * route's transform, before the schema reads the body.
   */
  const countTest = async ({ request }: { request: Request }) => {
    const { user } = await requestState(deps, request);
    if (!user) return;
    const wait = await deps.limits.pushTestsByUser.take(user.id, deps.now());
    if (wait > 0) throw new DomainError("error.tooMany", 429, { retryAfterMs: wait });
  };

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
      const sent = await sendTest(deps, user.id, body, state.locale);
      if (!sent) throw new DomainError("notifications.testFailed", 502);
      return json({ sent });
    }, { transform: countTest, body: testInput });
}
