import { Elysia } from "elysia";
import { context } from "../context";
import { type Deps } from "../deps";
import { asRecord } from "../lib/http";
import { preferencesForm } from "./input";
import { changePreferences } from "./service";

/** The Settings card's notification form without JavaScript (the switches use `notificationApi`). */
export function notificationRoutes(deps: Deps) {
  return new Elysia({ name: "offline.notifications", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .post("/settings/notifications", async ({ user, body, sendTo }) => {
      await changePreferences(deps, user.id, preferencesForm.parse(asRecord(body)));
      return sendTo("/settings", { title: "notifications.saved" });
    });
}
