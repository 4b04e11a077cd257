import { Elysia } from "elysia";
import { context } from "../context";
import type { Deps } from "../deps";
import { isDomainError } from "../lib/domain-error";
import { parseBody } from "../lib/validation";
import { busyCalendarInput } from "./input";
import { asRecord, json, safeNext, wantsJson } from "../lib/http";
import type { MessageKey } from "../texts";
import { clearBusyCalendar, setBusyCalendar } from "./busy-calendar";
import { calendarFeed, changeCalendarFeed, feedOwner, feedUrl, type FeedAction } from "./feed";

const FEED_ACTIONS: FeedAction[] = ["on", "reset", "off"];
const FEED_TOASTS: Record<FeedAction, { title: MessageKey; body?: MessageKey }> = {
  on: { title: "availability.feed.turnedOn" },
  reset: { title: "availability.feed.wasReset", body: "availability.feed.wasResetBody" },
  off: { title: "availability.feed.turnedOff" },
};

/** The same answer for every link that does not open a feed: nothing tells them apart. */
const noFeed = () => new Response("Not found\n", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });

/**
 * Calendar feeds and the outside busy calendar (docs/decisions/0037):
 * - `GET /calendar/:userId/:token.ics`: a person's feed, for calendar apps (no session; the link
 *   is the key, so 404 for anything but the current one, and never kept by a shared cache);
 * - `POST /settings/calendar-feed` (`action`: on, reset, off): the person's own feed;
 * - `POST /availability/busy-calendar` (`url`, `action`: save, remove): the host's outside calendar.
 * The forms send `next` (the page they are on) to come back to it with a toast.
 */
export function feedRoutes(deps: Deps) {
  return new Elysia({ name: "offline.availability.feeds", seed: deps.id })
    .use(context(deps))
    .get(
      "/calendar/:userId/:file",
      async ({ params }) => {
        const owner = await feedOwner(deps, params.userId, params.file);
        if (!owner) return noFeed();
        return new Response(await calendarFeed(deps, owner), {
          headers: {
            "Content-Type": "text/calendar; charset=utf-8",
            "Content-Disposition": 'inline; filename="offline.ics"',
            "Cache-Control": "private, no-store",
            "X-Robots-Tag": "noindex",
          },
        });
      },
      { public: true },
    )
    .post(
      "/settings/calendar-feed",
      async ({ request, body, user, sendTo, state }) => {
        const input = asRecord(body);
        const action = FEED_ACTIONS.find((a) => a === input.action);
        if (!action) return json({ message: state.t("error.badRequest") }, 400);
        const version = await changeCalendarFeed(deps, user.id, action);
        if (wantsJson(request)) return json({ url: feedUrl(deps, { id: user.id, calendarFeedVersion: version }) });
        return sendTo(safeNext(input.next, "/settings"), FEED_TOASTS[action]);
      },
      { onboarded: true },
    )
    .post(
      "/availability/busy-calendar",
      async ({ request, body, user, sendTo }) => {
        const next = safeNext(asRecord(body).next, "/settings");
        let remove = false;
        try {
          const input = parseBody(busyCalendarInput, body);
          const url = input.url ?? "";
          remove = input.action === "remove" || !url.trim();
          if (remove) await clearBusyCalendar(deps, user.id);
          else await setBusyCalendar(deps, user.id, url);
        } catch (err) {
          // The form says the refusal as a toast on the page it came from; callers of JSON get it as JSON.
          if (isDomainError(err) && !wantsJson(request)) return sendTo(next, { title: err.key, variant: "error" });
          throw err;
        }
        if (wantsJson(request)) return json({ ok: true });
        return sendTo(next, remove ? { title: "availability.busy.removed" } : { title: "availability.busy.saved", body: "availability.busy.savedBody" });
      },
      { onboarded: true },
    );
}
