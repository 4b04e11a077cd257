import type { WebSocketHandler } from "bun";
import { Elysia } from "elysia";
import { loadSession } from "../../auth/service";
import { participantBooking } from "../../bookings/service";
import { context, requestState } from "../../context";
import { type Deps } from "../../deps";
import { json } from "../../../lib/http";
import type { Translate } from "../../../lib/i18n";
import { bookingTopic, clientFrame, CLOSE, type ServerFrame } from "../../live/frames";
import type { LiveSocket } from "../../live/hub";
import { liveListener } from "../../conversations/live";
import { loggable } from "../../../db/faults";

/** What one socket may do. */
export const LIVE_LIMITS = {
  /** The largest frame a client may send (ours are under 200 bytes); a larger one closes the socket (1009). */
  frameBytes: 4 * 1024,
  /** Conversations one socket follows at once. */
  subscriptions: 20,
  /**
   * Sockets one session keeps open in one process: a tab each, with room for many tabs; beyond,
   * a new one is closed at once (1008), so one session cannot hold the server's sockets.
   */
  socketsPerSession: 12,
  /** Frames a client may send per window; beyond, the socket is closed (1008). */
  framesPerWindow: 30,
  windowMs: 10_000,
} as const;

/**
 * Bun's settings for every socket of the server (given to the root app: Bun has one set).
 * A client that stops reading is closed once 1 MB waits for it, rather than held in memory;
 * it catches up when it reconnects.
 */
export const LIVE_SOCKET_OPTIONS = {
  maxPayloadLength: LIVE_LIMITS.frameBytes,
  backpressureLimit: 1024 * 1024,
  closeOnBackpressureLimit: true,
  idleTimeout: 120,
} satisfies Partial<WebSocketHandler<unknown>>;

/** An open socket, with what its frames need. */
interface Connection extends LiveSocket {
  /** The session's cookie value, to check on each subscribe that the session still holds. */
  token: string;
  /** Booking ids it is subscribed to. */
  bookings: Set<string>;
  t: Translate;
  /** Frames are handled one after another (a `viewing` right after its `subscribe_booking` finds it done). */
  queue: Promise<void>;
  frames: number;
  windowStart: number;
}

/**
 * The live channel: `/ws`, a WebSocket for signed-in, onboarded people (the app's access check
 * runs on the upgrade, as on every route), opened only from our own pages (the `Origin` check:
 * no cross-site WebSocket hijacking). A socket subscribes to the conversations it shows; each
 * subscription is checked against the booking's participants (strangers get the same refusal as
 * for a booking that does not exist) and against the session, which may have ended since.
 */
export function liveRoutes(deps: Deps) {
  const hub = deps.live;
  deps.events.on(liveListener(hub));
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const connections = new WeakMap<object, Connection>();

  /**
   * A browser always sends `Origin` with a WebSocket upgrade: it must be ours (the address the
   * page was opened at, or PUBLIC_URL). A client that sends none is not a browser, so it cannot
   * be made to use someone's cookies.
   */
  const crossSite = (request: Request) => {
    const origin = request.headers.get("origin");
    return origin !== null && origin !== new URL(request.url).origin && origin !== publicOrigin;
  };

  const send = (conn: Connection, frame: ServerFrame) => void conn.ws.send(JSON.stringify(frame));

  /** The session the socket was opened with still exists and is the same person's. */
  const sessionHolds = async (conn: Connection) => (await loadSession(deps.db, conn.token, deps.now()))?.user.id === conn.userId;

  const isParticipant = async (userId: string, bookingId: string) => (await participantBooking(deps, userId, bookingId)) !== null;

  async function handle(conn: Connection, raw: unknown): Promise<void> {
    // The socket closed while earlier frames were handled: what is left changes nothing.
    if (conn.ws.readyState !== WebSocket.OPEN) return;
    const parsed = clientFrame.safeParse(raw);
    if (!parsed.success) return send(conn, { type: "error", message: conn.t("live.badFrame") });
    const frame = parsed.data;
    const { bookingId } = frame;
    switch (frame.type) {
      case "subscribe_booking": {
        if (conn.bookings.has(bookingId)) return send(conn, { type: "subscribed", bookingId });
        if (conn.bookings.size >= LIVE_LIMITS.subscriptions) return send(conn, { type: "error", bookingId, message: conn.t("live.tooManySubscriptions") });
        if (!(await sessionHolds(conn))) return conn.ws.close(CLOSE.signedOut, "signed out");
        // A stranger and a booking that does not exist get the same answer.
        if (!(await isParticipant(conn.userId, bookingId))) return send(conn, { type: "error", bookingId, message: conn.t("live.notFound") });
        if (conn.ws.readyState !== WebSocket.OPEN) return;
        conn.ws.subscribe(bookingTopic(bookingId));
        conn.bookings.add(bookingId);
        return send(conn, { type: "subscribed", bookingId });
      }
      case "unsubscribe_booking":
        if (!conn.bookings.delete(bookingId)) return;
        conn.ws.unsubscribe(bookingTopic(bookingId));
        if (conn.viewing.delete(bookingId)) deps.presence.leave(conn.userId, bookingId);
        return;
      case "viewing":
        if (!conn.bookings.has(bookingId)) return send(conn, { type: "error", bookingId, message: conn.t("live.notSubscribed") });
        if (frame.visible && !conn.viewing.has(bookingId)) {
          conn.viewing.add(bookingId);
          deps.presence.enter(conn.userId, bookingId);
        } else if (!frame.visible && conn.viewing.delete(bookingId)) {
          deps.presence.leave(conn.userId, bookingId);
        }
        return;
    }
  }

  /** Counts a client's frames; false once it sent more than its window allows. */
  function withinBudget(conn: Connection) {
    const now = performance.now();
    if (now - conn.windowStart > LIVE_LIMITS.windowMs) {
      conn.windowStart = now;
      conn.frames = 0;
    }
    return ++conn.frames <= LIVE_LIMITS.framesPerWindow;
  }

  return new Elysia({ name: "offline.live", seed: deps.id })
    .use(context(deps))
    .onStart(({ server }) => {
      if (server) hub.attach(server);
    })
    .ws("/ws", {
      onboarded: true,
      // Runs twice on an accepted upgrade (Elysia): it only answers, never changes anything.
      beforeHandle: async ({ request }) => {
        if (crossSite(request)) return json({ message: (await requestState(deps, request)).t("error.csrf") }, 403);
      },
      open: async (ws) => {
        // The upgrade's own state (read once per request): the access check passed on it.
        const state = await requestState(deps, ws.data.request);
        if (!state.user || !state.session || !state.sessionToken) return ws.close(CLOSE.signedOut, "signed out");
        if (hub.socketsOfSession(state.user.id, state.session.sid) >= LIVE_LIMITS.socketsPerSession) return ws.close(CLOSE.policy, "too many connections");
        const conn: Connection = {
          ws: ws.raw,
          userId: state.user.id,
          sid: state.session.sid,
          token: state.sessionToken,
          t: state.t,
          bookings: new Set(),
          viewing: new Set(),
          queue: Promise.resolve(),
          frames: 0,
          windowStart: performance.now(),
        };
        connections.set(ws.raw, conn);
        hub.add(conn);
      },
      message: (ws, raw) => {
        const conn = connections.get(ws.raw);
        if (!conn) return;
        if (!withinBudget(conn)) return ws.close(CLOSE.policy, "too many frames");
        conn.queue = conn.queue
          .then(() => handle(conn, raw))
          .catch((err) => {
            console.error(`a live frame failed: ${loggable(err)}`);
            if (ws.raw.readyState === WebSocket.OPEN) send(conn, { type: "error", message: conn.t("error.title") });
          });
      },
      close: (ws) => {
        const conn = connections.get(ws.raw);
        if (!conn) return;
        connections.delete(ws.raw);
        hub.remove(conn);
      },
    });
}
