import { Elysia } from "elysia";
import { BookingError } from "../bookings/service";
import { context, type Deps, type RequestState } from "../context";
import { asRecord, json, waitHeaders } from "../lib/http";
import { lastMessageView, messageView } from "./serialize";
import { lastMessages, listMessages, markRead, sendMessage } from "./service";

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
