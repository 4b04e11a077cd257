import { Elysia } from "elysia";
import { context } from "../../context";
import { type Deps } from "../../deps";
import { json } from "../../../lib/http";
import { messageBody, messagesQuery } from "../../conversations/input";
import { lastMessageView, messageView } from "../../conversations/serialize";
import { lastMessages, listMessages, markRead, sendMessage } from "../../conversations/service";

/**
 * The messages calls of spec §7, for the chat island and scripts. Each declares its input
 * (`input.ts`); a refusal is thrown (`DomainError`) and answered by the app's error handler:
 * `{ message, fields?, ...extra }`, with `Retry-After` when sending too fast.
 */
export function messageApi(deps: Deps) {
  return new Elysia({ name: "offline.messages.api", seed: deps.id })
    .use(context(deps))
    .guard({ onboarded: true })
    .get("/api/messages", async ({ query, user }) => json((await listMessages(deps, user.id, query.bookingId, query.after)).map(messageView)), { query: messagesQuery })
    .post("/api/messages", async ({ body, user }) => {
      const { message } = await sendMessage(deps, user.id, { bookingId: body.bookingId, content: body.content });
      return json({ ...messageView(message), ...(body.clientId === undefined ? {} : { clientId: body.clientId }) }, 201);
    }, { body: messageBody })
    .post("/api/messages/:bookingId/mark-read", async ({ params, user }) => {
      const { updated, at } = await markRead(deps, user.id, params.bookingId);
      return json({ bookingId: params.bookingId, readerId: user.id, updated, at: new Date(at).toISOString() });
    })
    .get("/api/bookings/last-messages", async ({ user }) => json((await lastMessages(deps, user.id)).map(lastMessageView)));
}
