import { Elysia } from "elysia";
import { context } from "../context";
import { type Deps } from "../deps";
import { asRecord, json } from "../lib/http";
import { lastMessageView, messageView } from "./serialize";
import { lastMessages, listMessages, markRead, sendMessage } from "./service";

/** What a client may tag its message with to recognise the answer (not stored). */
const clientIdOf = (value: unknown) => (typeof value === "string" && value.length <= 100 ? value : undefined);

/**
 * The messages calls of spec §7, for the chat island and scripts. A refusal of the rules is
 * thrown (`DomainError`) and answered by the app's error handler: `{ message, ...fields }`, with
 * `Retry-After` when sending too fast.
 */
export function messageApi(deps: Deps) {
  return new Elysia({ name: "offline.messages.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/messages", async ({ query, user }) => json((await listMessages(deps, user.id, query.bookingId, query.after)).map(messageView)))
    .post("/api/messages", async ({ body, user }) => {
      const input = asRecord(body);
      const { message } = await sendMessage(deps, user.id, { bookingId: input.bookingId, content: input.content });
      const clientId = clientIdOf(input.clientId);
      return json({ ...messageView(message), ...(clientId === undefined ? {} : { clientId }) }, 201);
    })
    .post("/api/messages/:bookingId/mark-read", async ({ params, user }) => {
      const { updated, at } = await markRead(deps, user.id, params.bookingId);
      return json({ bookingId: params.bookingId, readerId: user.id, updated, at: new Date(at).toISOString() });
    })
    .get("/api/bookings/last-messages", async ({ user }) => json((await lastMessages(deps, user.id)).map(lastMessageView)));
}
