import { Elysia } from "elysia";
import type { ChatProps } from "../../../shared/chat";
import type { User } from "../../../db/schema";
import { ConversationScreen, type ConversationData } from "../../../views/bookings/Conversation";
import { bookingsToReview } from "../../reviews/queries";
import { BookingsScreen, InboxList } from "../../../views/bookings/List";
import { ErrorScreen } from "../../../views/shell/NotFound";
import { hostListings } from "../../activities/queries";
import { bookingOf, hostSessions, inboxOf, sessionKey, type InboxOrder } from "../../bookings/queries";
import { cancellationQuote } from "../../bookings/policies";
import { returnedFromCheckout } from "../../bookings/requests";
import { isDomainError } from "../../../lib/domain-error";
import { context, type FormScreen, type Render, type SendTo } from "../../context";
import { type Deps, type RequestState } from "../../deps";
import { isHtmx } from "../../../lib/http";
import { participantUser } from "../../profiles/serialize";
import { reviewsOf } from "../../reviews/queries";
import { htmlResponse } from "../../shell/render";
import { viewOf } from "../../shell/view";
import { messageView } from "../../conversations/serialize";
import { messageForm } from "../../conversations/input";
import { refundBody } from "../../bookings/input";
import { paidOut, refundPart, refundsOfBooking } from "../../bookings/refunds";
import { listMessages, markRead, readUpTo, sendMessage } from "../../conversations/service";
import { systemTexts } from "../../conversations/wording";
import { MAX_MESSAGE_LENGTH, MAX_REFUND_REASON } from "../../../shared/limits";
import { cityByName } from "../../../lib/places";

/**
 * Everything the conversation screen shows, for one of the booking's two sides (404 for anyone
 * else). Opening it reads it: the viewer is marked as having read the conversation (`markRead`),
 * so the page works as the spec's mark-read call without JavaScript.
 */
async function conversationData(deps: Deps, state: RequestState, user: User, bookingId: string, opts: { read: boolean; draft?: string; error?: string; refundForm?: ConversationData["refundForm"] }): Promise<ConversationData> {
  const row = await bookingOf(deps, user.id, bookingId);
  const booking = row.booking;
  const role = booking.guestId === user.id ? "guest" : "host";
  if (opts.read) await markRead(deps, user.id, booking.id);
  const now = deps.now();
  const other = participantUser(role === "guest" ? row.host : row.guest, new Date(now));
  const [listed, received] = await Promise.all([hostListings(deps.db, other.id, 0), reviewsOf(deps.db, other.id, 0)]);
  const messages = await listMessages(deps, user.id, booking.id);
  const seenUpTo = await readUpTo(deps, booking.id, other.id);
  // A deleted account has no name left: its system messages read "Deleted user" (docs/decisions/0057).
  const texts = systemTexts(state.t, role, other.firstName || state.t("people.deletedUser"), booking);
  const t = state.t;
  const chat: ChatProps = {
    bookingId: booking.id,
    viewerId: user.id,
    status: booking.status,
    messages: messages.map(messageView),
    otherReadAt: seenUpTo === null ? null : new Date(seenUpTo).toISOString(),
    locale: state.locale,
    // A message's time is the reader's own clock (shared/chat.ts `timeZone`): here, before the
    // island knows the device's zone, the zone of the reader's city, else the activity's.
    timeZone: cityByName(user.city)?.timeZone ?? booking.timeZone,
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
    cancelQuote: cancellationQuote(booking, now),
    canReview: (await bookingsToReview(deps, user.id, [booking])).has(booking.id),
    now,
    draft: opts.draft,
    error: opts.error,
    refunds: await refundsOfBooking(deps, booking.id),
    paidOut: await paidOut(deps, booking.id),
    refundForm: opts.refundForm,
  };
}

const orderOf = (sort: unknown): InboxOrder => (sort === "oldest" ? "oldest" : "newest");

/** The conversation's data, or null when the booking is not the viewer's (404). */
const unlessNotFound = (data: Promise<ConversationData>) =>
  data.catch((err: unknown) => {
    if (isDomainError(err) && err.status === 404) return null;
    throw err;
  });

/** The bookings inbox and the conversation screens, with the message form that works without JavaScript. */
export function conversationPages(deps: Deps) {
  const notFound = (render: Render) =>
    render((view) => <ErrorScreen view={view} title={view.t("booking.notFound")} body={view.t("booking.notFoundBody")} />, { status: 404 });

  /** A refused message is shown again in the conversation, with the text kept and the reason under the field. */
  const messageScreen: FormScreen = async ({ sent, error, message }, { state, user, params, render }) => {
    if (!user || error.status === 404) return notFound(render);
    const draft = typeof sent.content === "string" ? sent.content.slice(0, MAX_MESSAGE_LENGTH * 2) : "";
    const data = await unlessNotFound(conversationData(deps, state, user, params.id ?? "", { read: false, draft, error: message }));
    if (!data) return notFound(render);
    return render((view) => <ConversationScreen view={view} data={data} />, { status: error.status });
  };

  /** A refused refund is shown again on the conversation, with what was typed and each field's message. */
  const refundScreen: FormScreen = async ({ sent, error, message, fields }, { state, user, params, render }) => {
    if (!user || error.status === 404) return notFound(render);
    const typed = (v: unknown, max: number) => (typeof v === "string" || typeof v === "number" ? String(v).slice(0, max) : "");
    const refundForm = { amount: typed(sent.amount, 32), reason: typed(sent.reason, MAX_REFUND_REASON * 2), message: Object.keys(fields).length ? undefined : message, fields };
    const data = await unlessNotFound(conversationData(deps, state, user, params.id ?? "", { read: false, refundForm }));
    if (!data) return notFound(render);
    return render((view) => <ConversationScreen view={view} data={data} />, { status: error.status });
  };

  return new Elysia({ name: "offline.messages.pages", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/bookings", (ctx) => inbox(ctx))
    .get("/messages", (ctx) => inbox(ctx))
    .get("/bookings/:id", async ({ params, user, state, render }) => {
      const data = await unlessNotFound(conversationData(deps, state, user, params.id, { read: true }));
      if (!data) return notFound(render);
      return render((view) => <ConversationScreen view={view} data={data} />);
    })
    .post("/bookings/:id/messages", async ({ params, body, user, sendTo }) => {
      await sendMessage(deps, user.id, { bookingId: params.id, content: body.content });
      return sendTo(`/bookings/${params.id}#latest`);
    }, { body: messageForm, refused: { screen: messageScreen } })
    // The host's form on the conversation (docs/decisions/0051); the JSON call is POST /api/bookings/{id}/refunds.
    .post("/bookings/:id/refunds", async ({ params, body, user, sendTo }) => {
      await refundPart(deps, user, params.id, body);
      return sendTo(`/bookings/${params.id}#latest`, { title: "refunds.done", body: "refunds.doneBody", variant: "success" });
    }, { body: refundBody, refused: { title: () => "common.error", screen: refundScreen } });

  /** /bookings and /messages; a sort swap (htmx) gets the list alone. */
  async function inbox({ query, user, state, render, sendTo, request }: { query: Record<string, string | undefined>; user: User; state: RequestState; render: Render; sendTo: SendTo; request: Request }) {
    // Back from the hosted checkout: the toast travels as a flash and the address is /bookings
    // again, so a reload or a bookmark does not say it twice (works without JavaScript).
    if (query.success === "true") {
      // An activity that books instantly (docs/decisions/0037) was booked and charged, not requested.
      const booked = (await returnedFromCheckout(deps, user.id, query.booking))?.status === "accepted";
      return sendTo("/bookings", booked ? { title: "toast.booked", body: "toast.bookedBody", variant: "success" } : { title: "bookings.paymentSuccessful", variant: "success" });
    }
    if (query.canceled === "true") return sendTo("/bookings", { title: "bookings.paymentCanceled", body: "bookings.paymentCanceledBody", variant: "error" });
    const order = orderOf(query.sort);
    const rows = await inboxOf(deps, user.id, order);
    // Completed bookings the person may still review (once per side, within 14 days) get a link.
    const toReview = await bookingsToReview(deps, user.id, rows.map((r) => r.booking));
    // The host sees each group booking's session roster (docs/decisions/0049).
    const hosted = rows.filter((r) => r.booking.hostId === user.id && r.booking.pricePerPersonCents !== null).map((r) => sessionKey(r.booking));
    const rosters = new Map((await hostSessions(deps, user.id, { keys: hosted })).map((s) => [sessionKey(s), s]));
    const now = deps.now();
    if (isHtmx(request) && !request.headers.get("hx-history-restore-request")) {
      return htmlResponse(String(<InboxList view={await viewOf(deps, state, request)} rows={rows} order={order} now={now} toReview={toReview} rosters={rosters} />));
    }
    return render((view) => <BookingsScreen view={view} rows={rows} order={order} now={now} toReview={toReview} rosters={rosters} />);
  }
}
