import { Elysia } from "elysia";
import type { ChatProps } from "../../shared/chat";
import type { User } from "../../db/schema";
import { ConversationScreen, type ConversationData } from "../../views/bookings/Conversation";
import { bookingsToReview } from "../reviews/service";
import { BookingsScreen, InboxList } from "../../views/bookings/List";
import { ErrorScreen } from "../../views/shell/NotFound";
import { hostListings } from "../activities/service";
import { bookingOf, inboxOf, type InboxOrder } from "../bookings/queries";
import { BookingError, GUEST_CANCEL_NOTICE_MS } from "../bookings/service";
import { context, type Render, type SendTo } from "../context";
import { type Deps, type RequestState } from "../deps";
import { asRecord, isHtmx, json, waitHeaders } from "../lib/http";
import { participantUser } from "../profiles/serialize";
import { reviewsOf } from "../reviews/service";
import { htmlResponse } from "../shell/render";
import { viewOf } from "../shell/view";
import { lastMessageView, messageView } from "./serialize";
import { lastMessages, listMessages, markRead, MAX_MESSAGE_LENGTH, readUpTo, sendMessage } from "./service";
import { systemTexts } from "./wording";

/** A refusal of the messages rules as the API answers it: the message in the caller's language, and a wait when there is one. */
export function messageErrorJson(state: RequestState, err: BookingError) {
  const wait = typeof err.extra.retryAfterMs === "number" ? err.extra.retryAfterMs : undefined;
  return json({ message: state.t(err.key), ...err.extra }, err.status, waitHeaders(wait));
}

/** Runs a call; a refusal of the rules becomes its 4xx answer. */
async function answering(state: RequestState, work: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BookingError) return messageErrorJson(state, err);
    throw err;
  }
}

/** What a client may tag its message with to recognise the answer (not stored). */
const clientIdOf = (value: unknown) => (typeof value === "string" && value.length <= 100 ? value : undefined);

/** The messages calls of spec §7, for the chat island and scripts. */
export function messageApi(deps: Deps) {
  return new Elysia({ name: "offline.messages.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/messages", ({ query, user, state }) =>
      answering(state, () => json(listMessages(deps, user.id, query.bookingId, query.after).map(messageView))),
    )
    .post("/api/messages", ({ body, user, state }) =>
      answering(state, () => {
        const input = asRecord(body);
        const { message } = sendMessage(deps, user.id, { bookingId: input.bookingId, content: input.content });
        const clientId = clientIdOf(input.clientId);
        return json({ ...messageView(message), ...(clientId === undefined ? {} : { clientId }) }, 201);
      }),
    )
    .post("/api/messages/:bookingId/mark-read", ({ params, user, state }) =>
      answering(state, () => {
        const { updated, at } = markRead(deps, user.id, params.bookingId);
        return json({ bookingId: params.bookingId, readerId: user.id, updated, at: new Date(at).toISOString() });
      }),
    )
    .get("/api/bookings/last-messages", ({ user }) => json(lastMessages(deps, user.id).map(lastMessageView)));
}

/**
 * Everything the conversation screen shows, for one of the booking's two sides (404 for anyone
 * else). Opening it reads it: the viewer is marked as having read the conversation (`markRead`),
 * so the page works as the spec's mark-read call without JavaScript.
 */
async function conversationData(deps: Deps, state: RequestState, user: User, bookingId: string, opts: { read: boolean; draft?: string; error?: string }): Promise<ConversationData> {
  const row = await bookingOf(deps, user.id, bookingId);
  const booking = row.booking;
  const role = booking.guestId === user.id ? "guest" : "host";
  if (opts.read) markRead(deps, user.id, booking.id);
  const now = deps.now();
  const other = participantUser(role === "guest" ? row.host : row.guest, new Date(now));
  const [listed, received] = await Promise.all([hostListings(deps.db, other.id, 0), reviewsOf(deps.db, other.id, 0)]);
  const messages = listMessages(deps, user.id, booking.id);
  const seenUpTo = readUpTo(deps, booking.id, other.id);
  const texts = systemTexts(state.t, role, other.firstName, booking);
  const t = state.t;
  const chat: ChatProps = {
    bookingId: booking.id,
    viewerId: user.id,
    status: booking.status,
    messages: messages.map(messageView),
    otherReadAt: seenUpTo === null ? null : new Date(seenUpTo).toISOString(),
    locale: state.locale,
    timeZone: booking.timeZone,
    maxLength: MAX_MESSAGE_LENGTH,
    texts: {
      placeholder: t("messages.placeholder"),
      inputLabel: t("messages.inputLabel"),
      send: t("messages.send"),
      retry: t("messages.retry"),
      failed: t("messages.failed"),
      seen: t("messages.seen"),
      disabledBanner: t("messages.notAccepted"),
      closedBanner: t("messages.closed"),
      rateLimited: t("messages.rateLimited"),
      tooLong: t("messages.tooLong"),
      offline: t("messages.offline"),
      reconnecting: t("messages.reconnecting"),
      listLabel: t("messages.listLabel"),
      empty: t("messages.empty"),
    },
    systemTexts: texts,
    csrf: state.session?.csrf ?? "",
  };
  return {
    booking,
    role,
    activity: row.activity,
    other,
    otherStats: { activities: listed.total, rating: received.average, reviews: received.total },
    messages,
    seenUpTo,
    chat,
    guestCancelUntil: booking.startsAt - GUEST_CANCEL_NOTICE_MS,
    canReview: bookingsToReview(deps, user.id, [booking]).has(booking.id),
    now,
    draft: opts.draft,
    error: opts.error,
  };
}

const orderOf = (sort: unknown): InboxOrder => (sort === "oldest" ? "oldest" : "newest");

/** The bookings inbox and the conversation screens, with the message form that works without JavaScript. */
export function conversationPages(deps: Deps) {
  const notFound = (render: Render) =>
    render((view) => <ErrorScreen view={view} title={view.t("booking.notFound")} body={view.t("booking.notFoundBody")} />, { status: 404 });

  return new Elysia({ name: "offline.messages.pages", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/bookings", (ctx) => inbox(ctx))
    .get("/messages", (ctx) => inbox(ctx))
    .get("/bookings/:id", async ({ params, user, state, render }) => {
      try {
        const data = await conversationData(deps, state, user, params.id, { read: true });
        return render((view) => <ConversationScreen view={view} data={data} />);
      } catch (err) {
        if (err instanceof BookingError && err.status === 404) return notFound(render);
        throw err;
      }
    })
    .post("/bookings/:id/messages", async ({ params, body, user, state, render, sendTo }) => {
      const content = asRecord(body).content;
      try {
        sendMessage(deps, user.id, { bookingId: params.id, content });
        return sendTo(`/bookings/${params.id}#latest`);
      } catch (err) {
        if (!(err instanceof BookingError)) throw err;
        if (err.status === 404) return notFound(render);
        // Shown again with the text kept and the reason under the field.
        const draft = typeof content === "string" ? content.slice(0, MAX_MESSAGE_LENGTH * 2) : "";
        const data = await conversationData(deps, state, user, params.id, { read: false, draft, error: state.t(err.key) });
        const wait = typeof err.extra.retryAfterMs === "number" ? err.extra.retryAfterMs : undefined;
        return render((view) => <ConversationScreen view={view} data={data} />, { status: err.status, headers: waitHeaders(wait) });
      }
    });

  /** /bookings and /messages; a sort swap (htmx) gets the list alone. */
  async function inbox({ query, user, state, render, sendTo, request }: { query: Record<string, string | undefined>; user: User; state: RequestState; render: Render; sendTo: SendTo; request: Request }) {
    // Back from the hosted checkout: the toast travels as a flash and the address is /bookings
    // again, so a reload or a bookmark does not say it twice (works without JavaScript).
    if (query.success === "true") return sendTo("/bookings", { title: "bookings.paymentSuccessful", variant: "success" });
    if (query.canceled === "true") return sendTo("/bookings", { title: "bookings.paymentCanceled", body: "bookings.paymentCanceledBody", variant: "error" });
    const order = orderOf(query.sort);
    const rows = await inboxOf(deps, user.id, order);
    // Completed bookings the person may still review (once per side, within 14 days) get a link.
    const toReview = bookingsToReview(deps, user.id, rows.map((r) => r.booking));
    const now = deps.now();
    if (isHtmx(request) && !request.headers.get("hx-history-restore-request")) {
      return htmlResponse(String(<InboxList view={viewOf(deps, state, request)} rows={rows} order={order} now={now} toReview={toReview} />));
    }
    return render((view) => <BookingsScreen view={view} rows={rows} order={order} now={now} toReview={toReview} />);
  }
}
