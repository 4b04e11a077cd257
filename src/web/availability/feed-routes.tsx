import { Elysia } from "elysia";
import { context, type FormRefusal } from "../../context";
import type { Deps } from "../../deps";
import { busyCalendarInput, calendarFeedInput } from "../../availability/input";
import { json, safeNext, wantsJson } from "../../../lib/http";
import type { MessageKey } from "../../../lib/i18n";
import { clearBusyCalendar, setBusyCalendar } from "../../availability/busy-calendar";
import { calendarFeed, changeCalendarFeed, feedOwner, feedUrl, type FeedAction } from "../../availability/feed";

const FEED_TOASTS: Record<FeedAction, { title: MessageKey; body?: MessageKey }> = {
  on: { title: "availability.feed.turnedOn" },
  reset: { title: "availability.feed.wasReset", body: "availability.feed.wasResetBody" },
  off: { title: "availability.feed.turnedOff" },
};

/** Where a refused settings form goes back to: the page it came from (its `next`). */
const backToForm = ({ sent }: FormRefusal) => safeNext(sent.next, "/settings");

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
      async ({ request, body, user, sendTo }) => {
        const version = await changeCalendarFeed(deps, user.id, body.action);
        if (wantsJson(request)) return json({ url: feedUrl(deps, { id: user.id, calendarFeedVersion: version }) });
        return sendTo(body.next, FEED_TOASTS[body.action]);
      },
      { onboarded: true, body: calendarFeedInput },
    )
    // The form says a refusal as a toast on the page it came from; callers of JSON get it as JSON.
    .post(
      "/availability/busy-calendar",
      async ({ request, body, user, sendTo }) => {
        const remove = body.action === "remove" || !body.url.trim();
        if (remove) await clearBusyCalendar(deps, user.id);
        else await setBusyCalendar(deps, user.id, body.url);
        if (wantsJson(request)) return json({ ok: true });
        return sendTo(body.next, remove ? { title: "availability.busy.removed" } : { title: "availability.busy.saved", body: "availability.busy.savedBody" });
      },
      { onboarded: true, body: busyCalendarInput, refused: { back: backToForm } },
    );
}
