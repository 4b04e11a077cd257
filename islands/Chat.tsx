/** @jsxImportSource react */
import { useCallback, useEffect, useReducer, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from "react";
import { errorMessage } from "./api";
import type { ChatBookingStatus, ChatProps, MessageJSON, SentMessageJSON } from "../shared/chat";
import { chatReducer, lastMessageId, mayStillOpen, messageStamp, reconnectDelay, seenMessageId, systemWording, unreadByViewer, type ChatState, type Outgoing } from "../shared/chat-state";
import { mountWith } from "./mount";

/** Frames the server sends on `/ws` (src/live/frames.ts). */
type ServerFrame =
  | { type: "subscribed"; bookingId: string }
  | { type: "error"; bookingId?: string; message: string }
  | { type: "new_message"; bookingId: string; message: MessageJSON }
  | { type: "booking_status"; bookingId: string; status: ChatBookingStatus }
  | { type: "messages_read"; bookingId: string; readerId: string; at: string };

/** The server closed the socket because its session ended: a new one would be refused too. */
const SIGNED_OUT = 4401;

type Link = "connecting" | "open" | "reconnecting" | "offline";

/** An id for a message on its way; `crypto.randomUUID` exists only on https pages, and the app is also opened over plain http on a LAN. */
function newClientId() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

const isVisible = () => document.visibilityState === "visible";

/**
 * The chat panel of a conversation (spec §2 "Conversation"), over the server-rendered list and
 * form it replaces. Messages show at once when sent (with Retry when sending fails) and arrive
 * live through `/ws`; after a reconnection (with growing, jittered waits) it fetches what it
 * missed. It marks the conversation read while it is open and visible, shows 'Seen' under the
 * viewer's last message once the other side read it, and follows the booking's status: the
 * banner and the disabled input while it is not accepted, and `offline:booking-status` on
 * `document.body` for the page's cards.
 */
/**
 * The zone the reader's device keeps, in which every message's time is written: a message sent
 * at 5:18 in Paris reads 5:18 to a reader in Paris, whatever the activity's city. The server's
 * zone (`ChatProps.timeZone`) when the browser names none.
 */
function readerZone(fallback: string): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || fallback;
  } catch {
    return fallback;
  }
}

export function Chat(props: ChatProps) {
  const { bookingId, viewerId, texts, systemTexts, locale, maxLength, csrf } = props;
  const timeZone = readerZone(props.timeZone);
  const [state, dispatch] = useReducer(chatReducer(viewerId), undefined, (): ChatState => ({
    messages: props.messages,
    outgoing: [],
    status: props.status,
    otherReadAt: props.otherReadAt,
  }));
  const [draft, setDraft] = useState("");
  const [notice, setNotice] = useState<string | null>(null);
  const [link, setLink] = useState<Link>("connecting");
  // Socket handlers outlive renders: they read the latest state here.
  const current = useRef(state);
  current.current = state;
  const socket = useRef<WebSocket | null>(null);
  const reading = useRef({ busy: false, again: false });

  const post = useCallback(
    (path: string, body: unknown) =>
      fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body),
        credentials: "same-origin",
      }),
    [csrf],
  );

  /**
   * Marks the conversation read when it is shown and holds something unread. `unread` says so
   * for a message that just arrived (the state holding it may not be rendered yet). One call at a
   * time; what arrives during one is read by another right after.
   */
  const markRead = useCallback(
    async (unread = false) => {
      if (!isVisible() || !(unread || unreadByViewer(current.current, viewerId))) return;
      const r = reading.current;
      if (r.busy) {
        r.again = true;
        return;
      }
      r.busy = true;
      try {
        const res = await post(`/api/messages/${bookingId}/mark-read`, {});
        if (res.ok) dispatch({ type: "iRead" });
      } catch {
        // Read again on the next message or the next time the screen shows.
      } finally {
        r.busy = false;
        if (r.again) {
          r.again = false;
          void markRead(true);
        }
      }
    },
    [bookingId, viewerId, post],
  );

  /**
   * Fetches what was written since the newest message shown (after each subscription: a
   * reconnection, or the page's own age); resolves with it.
   */
  const catchUp = useCallback(async (): Promise<MessageJSON[]> => {
    const after = lastMessageId(current.current);
    try {
      const res = await fetch(`/api/messages?bookingId=${encodeURIComponent(bookingId)}${after ? `&after=${encodeURIComponent(after)}` : ""}`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!res.ok) return [];
      const missed = (await res.json()) as MessageJSON[];
      dispatch({ type: "received", messages: missed });
      return missed;
    } catch {
      // The next reconnection catches up again.
      return [];
    }
  }, [bookingId]);

  const deliver = useCallback(
    async (outgoing: Outgoing) => {
      dispatch({ type: "sending", clientId: outgoing.clientId });
      try {
        const res = await post("/api/messages", { bookingId, content: outgoing.content, clientId: outgoing.clientId });
        if (res.ok) {
          const sent = (await res.json()) as SentMessageJSON;
          const { clientId: _, ...message } = sent;
          dispatch({ type: "received", messages: [message], clientId: outgoing.clientId });
          return;
        }
        const error = res.status === 429 ? texts.rateLimited : await errorMessage(res);
        dispatch({ type: "failed", clientId: outgoing.clientId, error, waitsForNetwork: false });
      } catch {
        const offline = !navigator.onLine;
        dispatch({ type: "failed", clientId: outgoing.clientId, error: offline ? texts.offline : texts.failed, waitsForNetwork: offline });
      }
    },
    [bookingId, post, texts],
  );

  // The live connection, for as long as the island is on the page.
  useEffect(() => {
    let attempt = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const sendFrame = (frame: unknown) => {
      if (socket.current?.readyState === WebSocket.OPEN) socket.current.send(JSON.stringify(frame));
    };
    const sayViewing = () => sendFrame({ type: "viewing", bookingId, visible: isVisible() });

    const onFrame = (frame: ServerFrame) => {
      if (frame.bookingId !== undefined && frame.bookingId !== bookingId) return;
      switch (frame.type) {
        case "subscribed":
          attempt = 0;
          setLink("open");
          sayViewing();
          void catchUp().then((missed) => markRead(missed.some((m) => m.senderId !== viewerId && !m.readBy.includes(viewerId))));
          return;
        case "new_message":
          dispatch({ type: "received", messages: [frame.message] });
          if (frame.message.senderId !== viewerId) void markRead(true);
          return;
        case "booking_status":
          dispatch({ type: "status", status: frame.status });
          return;
        case "messages_read":
          if (frame.readerId !== viewerId) dispatch({ type: "otherRead", at: frame.at });
          return;
        case "error":
          // Only a refused subscription stops the island (the conversation is no longer this person's).
          if (frame.bookingId === undefined) return;
          stopped = true;
          socket.current?.close();
          setLink("offline");
          return;
      }
    };

    const connect = () => {
      clearTimeout(retry);
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
      socket.current = ws;
      ws.onopen = () => ws.send(JSON.stringify({ type: "subscribe_booking", bookingId }));
      ws.onmessage = (event) => {
        try {
          onFrame(JSON.parse(String(event.data)) as ServerFrame);
        } catch {
          // A frame this version does not know: ignored.
        }
      };
      ws.onclose = (event) => {
        if (socket.current === ws) socket.current = null;
        if (stopped) return;
        // The session ended (signed out elsewhere): the page sends the person to sign in again.
        if (event.code === SIGNED_OUT) return location.reload();
        setLink(navigator.onLine ? "reconnecting" : "offline");
        retry = setTimeout(connect, reconnectDelay(attempt++));
      };
    };

    const online = () => {
      // Back online: reconnect now rather than at the end of a long wait, and send what waited.
      if (!socket.current && !stopped) {
        attempt = 0;
        connect();
      }
      for (const o of current.current.outgoing) if (o.waitsForNetwork) void deliver(o);
    };
    const offline = () => setLink("offline");
    const visibility = () => {
      sayViewing();
      void markRead();
    };

    connect();
    window.addEventListener("online", online);
    window.addEventListener("offline", offline);
    document.addEventListener("visibilitychange", visibility);
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket.current?.close();
      window.removeEventListener("online", online);
      window.removeEventListener("offline", offline);
      document.removeEventListener("visibilitychange", visibility);
    };
  }, [bookingId, viewerId, catchUp, markRead, deliver]);

  // The page's cards follow the status (views/bookings/Conversation.tsx listens on the body).
  const shownStatus = useRef(props.status);
  useEffect(() => {
    if (state.status === shownStatus.current) return;
    shownStatus.current = state.status;
    document.body.dispatchEvent(new CustomEvent("offline:booking-status", { detail: { bookingId, status: state.status } }));
  }, [bookingId, state.status]);

  // A new message scrolls into view when the person was at the end of the conversation.
  const count = state.messages.length + state.outgoing.length;
  const atEnd = useRef(true);
  useEffect(() => {
    const track = () => (atEnd.current = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160);
    window.addEventListener("scroll", track, { passive: true });
    return () => window.removeEventListener("scroll", track);
  }, []);
  useEffect(() => {
    // To the very end of the page, not just the list's end: the composer after the list sticks to
    // the bottom of the screen and would cover the newest message that only reached its edge.
    if (atEnd.current) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [count]);

  const open = state.status === "accepted";

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (!open || !content) return;
    if (content.length > maxLength) return setNotice(texts.tooLong);
    setNotice(null);
    const outgoing: Outgoing = { clientId: newClientId(), content, createdAt: new Date().toISOString(), state: "sending" };
    dispatch({ type: "writing", outgoing });
    setDraft("");
    void deliver(outgoing);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends; Shift+Enter starts a new line; a key that ends an IME composition does neither.
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) submit(event);
  };

  const now = Date.now();
  const seen = seenMessageId(state, viewerId);
  const stamp = (iso: string) => (
    <time dateTime={iso} className="text-xs text-muted">
      {messageStamp(locale, Date.parse(iso), now, timeZone)}
    </time>
  );
  const systemLine = (m: MessageJSON) => {
    const text = m.systemMessageType ? systemTexts[m.systemMessageType] : undefined;
    if (!text) return "";
    return systemWording(text, m.senderId, viewerId);
  };
  const status = link === "offline" ? texts.offline : link === "reconnecting" ? texts.reconnecting : "";

  return (
    <>
      <div className="flex-1">
        <ol className="flex flex-col gap-3 py-4" aria-label={texts.listLabel} aria-live="polite" aria-relevant="additions" data-message-list>
          {state.messages.length === 0 && state.outgoing.length === 0 ? <li className="py-6 text-center text-sm text-muted">{texts.empty}</li> : null}
          {state.messages.map((m) =>
            m.isSystemMessage ? (
              <li key={m.id} className="flex flex-col items-center gap-0.5 px-6 text-center" data-message={m.id} data-system={m.systemMessageType ?? ""}>
                <p className="rounded-full bg-sunken px-3 py-1 text-sm text-muted">{systemLine(m)}</p>
                {/* A refund's reason, in the host's words. */}
                {m.systemMessageType === "booking_refunded" ? (
                  <p className="max-w-[85%] whitespace-pre-wrap break-words text-sm" data-refund-reason>
                    {m.content}
                  </p>
                ) : null}
                {stamp(m.createdAt)}
              </li>
            ) : (
              <Bubble key={m.id} mine={m.senderId === viewerId} id={m.id} content={m.content}>
                {stamp(m.createdAt)}
                {m.id === seen ? (
                  <span className="text-xs text-muted" data-seen>
                    {texts.seen}
                  </span>
                ) : null}
              </Bubble>
            ),
          )}
          {state.outgoing.map((o) => (
            <Bubble key={o.clientId} mine id="" content={o.content} pending={o.state === "sending"}>
              {o.state === "failed" ? (
                <>
                  <span className="text-xs text-red-600 dark:text-red-300" role="alert">
                    {texts.failed}
                    {o.error && o.error !== texts.failed ? ` · ${o.error}` : ""}
                  </span>
                  {o.waitsForNetwork ? null : (
                    <button type="button" className="link text-xs" onClick={() => void deliver(o)} data-retry>
                      {texts.retry}
                    </button>
                  )}
                </>
              ) : (
                stamp(o.createdAt)
              )}
            </Bubble>
          ))}
        </ol>
      </div>
      <div className="sticky bottom-0 -mx-4 border-t border-line bg-surface px-4 pb-[max(0.75rem,env(safe-area-inset-bottom))] pt-3">
        {open ? null : (
          <p
            className={`mb-3 rounded-xl px-3 py-2 text-sm ${mayStillOpen(state.status) ? "bg-amber-100 text-amber-900" : "bg-sunken text-ink"}`}
            role="status"
            data-chat-disabled={mayStillOpen(state.status) ? "waiting" : "ended"}
          >
            {mayStillOpen(state.status) ? texts.disabledBanner : texts.closedBanner}
          </p>
        )}
        <p className="mb-2 text-xs text-muted empty:hidden" role="status" data-link={link}>
          {status}
        </p>
        <form className="flex items-end gap-2" onSubmit={submit} data-message-form>
          <label htmlFor={`message-input-${bookingId}`} className="sr-only">
            {texts.inputLabel}
          </label>
          <textarea
            id={`message-input-${bookingId}`}
            name="content"
            rows={2}
            maxLength={maxLength}
            placeholder={texts.placeholder}
            className="input min-h-11 flex-1 resize-none"
            value={draft}
            onChange={(e) => {
              setDraft(e.target.value);
              if (notice) setNotice(null);
            }}
            onKeyDown={onKeyDown}
            disabled={!open}
            aria-describedby={`message-count-${bookingId}`}
            aria-invalid={notice ? true : undefined}
          />
          <button type="submit" className="btn btn-primary min-h-11" disabled={!open || !draft.trim()}>
            {texts.send}
          </button>
        </form>
        <p className="mt-1 flex justify-between gap-2 text-xs text-muted">
          <span role="alert" className="field-error">
            {notice ?? ""}
          </span>
          <span id={`message-count-${bookingId}`} data-count>
            {draft.length > 0 ? `${draft.length.toLocaleString(locale === "fr" ? "fr-FR" : "en-US")} / ${maxLength.toLocaleString(locale === "fr" ? "fr-FR" : "en-US")}` : ""}
          </span>
        </p>
      </div>
    </>
  );
}

/** One person's message: the viewer's on the right, the other side's on the left. */
function Bubble(props: { mine: boolean; id: string; content: string; pending?: boolean; children: ReactNode }) {
  const { mine, id, content, pending, children } = props;
  return (
    <li className={`flex flex-col gap-0.5 ${mine ? "items-end" : "items-start"}`} data-message={id || undefined} data-mine={mine ? "true" : "false"} data-pending={pending ? "true" : undefined}>
      <p
        className={`max-w-[85%] whitespace-pre-wrap break-words rounded-2xl px-3.5 py-2 ${mine ? "rounded-br-md bg-brand-600 text-white" : "rounded-bl-md bg-raised border border-line"} ${pending ? "opacity-70" : ""}`}
      >
        {content}
      </p>
      <span className="flex gap-2">{children}</span>
    </li>
  );
}

// The stamps' formatters are made before the first render, in a task of their own (islands/mount.ts).
export const mount = mountWith(Chat, ({ messages, locale, timeZone: serverZone }) => {
  const now = Date.now();
  const timeZone = readerZone(serverZone);
  for (const m of messages) messageStamp(locale, Date.parse(m.createdAt), now, timeZone);
});
