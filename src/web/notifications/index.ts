import { Elysia } from "elysia";
import type { Deps } from "../../deps";
import { notificationApi } from "./api";
import { listenForEmails, messageEmailJob } from "../../notifications/emails";
import { listenForNotices, reminderJob } from "../../notifications/notices";
import { pushJob } from "../../notifications/push";
import { notificationRoutes, unsubscribeRoutes } from "./routes";

/**
 * Notifications: preferences and push subscriptions (API and the Settings form), the one-click
 * unsubscribe pages of their emails, the jobs that send push notifications, reminders and batched
 * message emails, and the listeners that turn committed changes into them (docs/decisions/0025,
 * emails.ts).
 */
export const notificationsFeature = (deps: Deps) => {
  deps.jobs.register(pushJob, reminderJob, messageEmailJob);
  listenForNotices(deps);
  listenForEmails(deps);
  return new Elysia({ name: "offline.notifications.feature", seed: deps.id })
    .use(notificationApi(deps))
    .use(notificationRoutes(deps))
    .use(unsubscribeRoutes(deps));
};
