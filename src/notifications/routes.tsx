import { Elysia } from "elysia";
import { context } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, json, waitHeaders, waitParams } from "../lib/http";
import { RateLimiter } from "../lib/rate-limit";
import { listenForEmails, messageEmailJob } from "./emails";
import { listenForNotices, reminderJob, sendTest } from "./notices";
import { pushJob } from "./push";
import { changePreference, NotificationError, preferencesOf, savePreferences, subscribe, unsubscribe } from "./service";

/** Test notifications one person may send in this window. */
const TESTS_PER_WINDOW = 5;
const TEST_WINDOW_MS = 10 * 60 * 1000;

/**
 * The notification calls of spec §7, the Settings card's form without JavaScript, and the
 * listeners that turn committed changes into push notifications (docs/decisions/0025) and
 * emails (emails.ts; the batched message emails' job).
 */
export function notificationRoutes(deps: Deps) {
  deps.jobs.register(pushJob, reminderJob, messageEmailJob);
  listenForNotices(deps);
  listenForEmails(deps);
  const testsByUser = new RateLimiter(TESTS_PER_WINDOW, TEST_WINDOW_MS);

  /** Runs a handler; a NotificationError becomes its status and translated message. */
  async function answering(state: RequestState, handler: () => Promise<Response> | Response) {
    try {
      return await handler();
    } catch (err) {
      if (err instanceof NotificationError) return json({ message: state.t(err.key) }, err.status);
      throw err;
    }
  }

  return new Elysia({ name: "offline.notifications", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/notifications/preferences", ({ user }) => json(preferencesOf(deps.db, user.id)))
    .post("/api/notifications/preferences", ({ user, body, state }) => answering(state, () => json(changePreference(deps, user.id, body))))
    .post("/settings/notifications", ({ user, body, sendTo }) => {
      savePreferences(deps, user.id, asRecord(body));
      return sendTo("/settings", { title: "notifications.saved" });
    })
    .get("/api/notifications/vapid-public-key", () => json({ publicKey: deps.secrets.vapidPublicKey }))
    .post("/api/notifications/subscribe", ({ user, body, request, state }) =>
      answering(state, async () => {
        const outcome = await subscribe(deps, user.id, body, { userAgent: request.headers.get("user-agent"), locale: state.locale });
        return json({ subscribed: true }, outcome === "created" ? 201 : 200);
      }),
    )
    .post("/api/notifications/unsubscribe", ({ user, body, state }) =>
      answering(state, () => {
        unsubscribe(deps, user.id, body);
        return json({ subscribed: false });
      }),
    )
    .post("/api/notifications/test", ({ user, body, state }) =>
      answering(state, async () => {
        const now = deps.now();
        const wait = testsByUser.retryAfter(user.id, now);
        if (wait > 0) return json({ message: state.t("error.tooMany", waitParams(wait)) }, 429, waitHeaders(wait));
        testsByUser.hit(user.id, now);
        const sent = await sendTest(deps, user.id, asRecord(body), state.locale);
        if (!sent) return json({ message: state.t("notifications.testFailed") }, 502);
        return json({ sent });
      }),
    );
}
