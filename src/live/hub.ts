import type { RedisClient, Server } from "bun";
import type { Config } from "../config";
import { LocalPresence, type Presence } from "../../lib/presence";
import { LocalBroadcaster, type Broadcaster } from "./broadcaster";
import { CLOSE, SESSIONS_TOPIC, type EndedSessions, type ServerFrame } from "./frames";
import { redisLive } from "./redis";

/**
 * The live channel's parts for this configuration: in one process, Bun's pub/sub and presence
 * counted in memory; with `REDIS_URL`, both shared through Redis, and `redis`, the command
 * connection the live hub keeps (the rate limits count through it too).
 */
export function makeLive(config: Config): { live: LiveHub; presence: Presence; redis: RedisClient | null } {
  if (!config.redisUrl) {
    const presence = new LocalPresence();
    return { live: new LiveHub(new LocalBroadcaster(), presence), presence, redis: null };
  }
  const { broadcaster, presence, commands } = redisLive(config.redisUrl);
  return { live: new LiveHub(broadcaster, presence), presence, redis: commands };
}

/** The parts of Bun's server socket the live channel uses. */
export interface SocketLink {
  readonly readyState: number;
  send(data: string): unknown;
  close(code?: number, reason?: string): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

/** What the hub knows of one open socket. */
export interface LiveSocket {
  ws: SocketLink;
  userId: string;
  /** The session it was opened with (its stored `sid`), so that ending that session closes it. */
  sid: string;
  /** Booking ids whose screen it shows (presence). */
  viewing: Set<string>;
}

/**
 * This process's live sockets. Frames published through the broadcaster (by this process or
 * another) reach the sockets subscribed to their topic through Bun's pub/sub; the control topic
 * of ended sessions closes the sockets those sessions opened.
 */
export class LiveHub {
  private server: Server<unknown> | null = null;
  private byUser = new Map<string, Set<LiveSocket>>();

  constructor(
    private readonly broadcaster: Broadcaster,
    private readonly presence: Presence,
  ) {
    broadcaster.subscribe({
      deliver: (topic, data) => {
        if (topic === SESSIONS_TOPIC) this.closeSessions(JSON.parse(data) as EndedSessions);
        else this.server?.publish(topic, data);
      },
      // Frames were lost while the link was down: clients reconnect and fetch what they missed.
      resumed: () => this.closeAll(CLOSE.resync, "resync"),
    });
  }

  /** Resolves once frames from other processes arrive (at once with one process). */
  ready() {
    return this.broadcaster.ready();
  }

  close() {
    this.broadcaster.close();
  }

  /**
   * The server is stopping: every socket is closed (the chat reconnects by itself), since an open
   * socket would otherwise keep the server's graceful stop waiting for as long as it lasts.
   */
  closeSockets() {
    this.closeAll(CLOSE.goingAway, "server stopping");
  }

  /** The server whose sockets subscribe to topics (set once it listens). */
  attach(server: Server<unknown>) {
    this.server = server;
  }

  add(socket: LiveSocket) {
    let sockets = this.byUser.get(socket.userId);
    if (!sockets) this.byUser.set(socket.userId, (sockets = new Set()));
    sockets.add(socket);
  }

  /** How many sockets of this process one session has open. */
  socketsOfSession(userId: string, sid: string): number {
    let count = 0;
    for (const socket of this.byUser.get(userId) ?? []) if (socket.sid === sid) count++;
    return count;
  }

  /** A socket closed: it stops counting as a viewer of anything. */
  remove(socket: LiveSocket) {
    for (const bookingId of socket.viewing) this.presence.leave(socket.userId, bookingId);
    socket.viewing.clear();
    const sockets = this.byUser.get(socket.userId);
    sockets?.delete(socket);
    if (sockets?.size === 0) this.byUser.delete(socket.userId);
  }

  publish(topic: string, frame: ServerFrame) {
    this.broadcaster.publish(topic, JSON.stringify(frame));
  }

  /** Tells every process to close the sockets of these sessions. */
  endSessions(ended: EndedSessions) {
    this.broadcaster.publish(SESSIONS_TOPIC, JSON.stringify(ended));
  }

  private closeSessions({ userId, sessionIds }: EndedSessions) {
    for (const socket of [...(this.byUser.get(userId) ?? [])]) {
      if (sessionIds === "all" || sessionIds.includes(socket.sid)) socket.ws.close(CLOSE.signedOut, "signed out");
    }
  }

  private closeAll(code: number, reason: string) {
    for (const sockets of [...this.byUser.values()]) for (const socket of [...sockets]) socket.ws.close(code, reason);
  }
}
