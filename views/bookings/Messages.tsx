import type { ChatSystemMessageType, SystemText } from "../../shared/chat";
import { mayStillOpen, messageStamp } from "../../shared/chat-state";
import type { BookingStatus } from "../../db/schema";
import type { MessageRow } from "../../src/events";
import { systemLine } from "../../src/conversations/wording";
import type { View } from "../../src/shell/view";
import { MAX_MESSAGE_LENGTH } from "../../shared/limits";

/**
 * The conversation as plain HTML: system messages as centred lines worded for the viewer, the
 * viewer's messages on the right, the other side's on the left, each with its time. The chat
 * island takes over this list when JavaScript runs; without it, this is the conversation.
 */
export function MessageList(props: { view: View; messages: MessageRow[]; viewerId: string; systemTexts: Record<ChatSystemMessageType, SystemText>; timeZone: string; now: number; seenUpTo: number | null }) {
  const { view, messages, viewerId, systemTexts, timeZone, now, seenUpTo } = props;
  const { t } = view;
  const lastMine = messages.findLast((m) => !m.isSystemMessage && m.senderId === viewerId);
  return (
    <ol class="flex flex-col gap-3 py-4" aria-label={t("messages.listLabel")} data-message-list>
      {messages.length === 0 ? (
        <li class="py-6 text-center text-sm text-muted" safe>
          {t("messages.empty")}
        </li>
      ) : (
        ""
      )}
      {messages.map((m, i) => {
        const stamp = (
          <time datetime={new Date(m.createdAt).toISOString()} class="text-xs text-muted" safe>
            {messageStamp(view.locale, m.createdAt, now, timeZone)}
          </time>
        );
        const id = i === messages.length - 1 ? "latest" : undefined;
        const line = systemLine(systemTexts, m, viewerId);
        if (m.isSystemMessage) {
          return (
            <li id={id} class="flex flex-col items-center gap-0.5 px-6 text-center" data-message={m.id} data-system={m.systemMessageType ?? ""}>
              <p class="rounded-full bg-sunken px-3 py-1 text-sm text-muted" safe>
                {line ?? ""}
              </p>
              {m.systemMessageType === "booking_refunded" ? (
                <p class="max-w-[85%] whitespace-pre-wrap break-words text-sm" data-refund-reason safe>
                  {m.content}
                </p>
              ) : (
                ""
              )}
              {stamp}
            </li>
          );
        }
        const mine = m.senderId === viewerId;
        return (
          <li id={id} class={`flex flex-col gap-0.5 ${mine ? "items-end" : "items-start"}`} data-message={m.id} data-mine={mine ? "true" : "false"}>
            <p class={`max-w-[85%] whitespace-pre-wrap break-words rounded-2xl px-3.5 py-2 ${mine ? "rounded-br-md bg-brand-600 text-white" : "rounded-bl-md bg-raised border border-line"}`} safe>
              {m.content}
            </p>
            <span class="flex gap-2">
              {stamp}
              {m === lastMine && seenUpTo !== null && seenUpTo >= m.createdAt ? (
                <span class="text-xs text-muted" data-seen safe>
                  {t("messages.seen")}
                </span>
              ) : (
                ""
              )}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

/**
 * The message form without JavaScript: a plain post that comes back to the conversation. While
 * the booking is not accepted, the banner says why and the field and button are disabled: it
 * waits for the host's answer, or (declined, expired, cancelled, completed) it has ended.
 */
export function MessageForm(props: { view: View; bookingId: string; status: BookingStatus; draft?: string; error?: string }) {
  const { view, bookingId, status, draft, error } = props;
  const { t } = view;
  const open = status === "accepted";
  const waiting = mayStillOpen(status);
  return (
    <div class="sticky bottom-0 -mx-4 border-t border-line bg-surface px-4 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-3">
      {open ? (
        ""
      ) : (
        <p class={`mb-3 rounded-xl px-3 py-2 text-sm ${waiting ? "bg-amber-100 text-amber-900" : "bg-sunken text-ink"}`} role="status" data-chat-disabled={waiting ? "waiting" : "ended"} safe>
          {t(waiting ? "messages.notAccepted" : "messages.closed")}
        </p>
      )}
      <form method="post" action={`/bookings/${bookingId}/messages`} class="flex items-end gap-2" data-message-form>
        <input type="hidden" name="_csrf" value={view.csrf} />
        <label for="message-input" class="sr-only" safe>
          {t("messages.inputLabel")}
        </label>
        <textarea
          id="message-input"
          name="content"
          rows="2"
          required
          maxlength={String(MAX_MESSAGE_LENGTH)}
          placeholder={t("messages.placeholder")}
          class="input min-h-11 flex-1 resize-none"
          disabled={!open}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? "message-error" : undefined}
          safe
        >
          {draft ?? ""}
        </textarea>
        <button type="submit" class="btn btn-primary min-h-11" disabled={!open} safe>
          {t("messages.send")}
        </button>
      </form>
      {error ? (
        <p id="message-error" class="field-error mt-2" role="alert" safe>
          {error}
        </p>
      ) : (
        ""
      )}
    </div>
  );
}
