import { RedisClient } from "bun";
import type { Broadcaster, BroadcastListener } from "./broadcaster";
import type { Presence } from "../../lib/presence";

/**
 * Live updates across processes through Redis (`REDIS_URL`), with Bun's built-in client
 * (docs/decisions/0021-several-processes.md). Two connections per process: one for commands
 * (publishing, presence), one that only listens (a subscribed Redis connection takes no other
 * commands).
 *
 * Every frame goes through one channel, and every process hears all of them: a process hands a
 * frame to its own sockets of that booking, if it has any. Per-booking channels would spare a
 * process the frames of conversations nobody opened there, at the price of a SUBSCRIBE and an
 * UNSUBSCRIBE per conversation opened and closed; with the few processes one SQLite database
 * allows, one channel is simpler and never misses a frame sent while subscribing.
 */
export const LIVE_CHANNEL = "offline:live";

/** Waits between attempts to get the listening connection back: 0.1 s doubling up to 5 s. */
const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

export function redisLive(url: string) {
  // Without the offline queue a publish made while Redis is away fails at once instead of piling
  // up; the frames lost then are fetched by the clients once the link is back (`resumed`).
  // The rate limits count through the same connection (lib/rate-limit.ts).
  const commands = new RedisClient(url, { enableOfflineQueue: false, connectionTimeout: 5_000 });
  return { broadcaster: new RedisBroadcaster(url, commands), presence: new RedisPresence(commands), commands };
}

export class RedisBroadcaster implements Broadcaster {
  private listener: BroadcastListener | null = null;
  private subscriber: RedisClient | null = null;
  private started: Promise<void> | null = null;
  private closed = false;
  /** One line in the log per outage, not one per frame. */
  private failing = false;

  constructor(
    private readonly url: string,
    private readonly commands: RedisClient,
  ) {}

  publish(topic: string, data: string) {
    // A topic never holds a line break, so the first one ends it.
    void this.commands.publish(LIVE_CHANNEL, `${topic}\n${data}`).then(
      () => (this.failing = false),
      (err: Error) => {
        if (!this.failing) console.error(`live updates: publishing through Redis failed (${err.message}); clients catch up once it is back`);
        this.failing = true;
      },
    );
  }

  subscribe(listener: BroadcastListener) {
    this.listener = listener;
  }

  /** Connects both connections; throws when Redis cannot be reached at start (the server stops). */
  ready() {
    this.started ??= (async () => {
      await this.commands.connect();
      const { lost } = await this.listen();
      void this.stayListening(lost);
    })();
    return this.started;
  }

  close() {
    this.closed = true;
    this.subscriber?.close();
    this.commands.close();
  }

  /** Opens the listening connection; `lost` resolves when it closes. */
  private async listen(): Promise<{ lost: Promise<void> }> {
    const client = new RedisClient(this.url, { autoReconnect: false, connectionTimeout: 5_000 });
    const lost = new Promise<void>((resolve) => (client.onclose = () => resolve()));
    try {
      await client.connect();
      await client.subscribe(LIVE_CHANNEL, (message) => {
        const cut = message.indexOf("\n");
        this.listener?.deliver(message.slice(0, cut), message.slice(cut + 1));
      });
    } catch (err) {
      client.close();
      throw err;
    }
    this.subscriber = client;
    return { lost };
  }

  /**
   * Bun reconnects a lost connection but does not subscribe it again, so the listening connection
   * is replaced instead, with growing waits, for as long as the app runs.
   */
  private async stayListening(lost: Promise<void>) {
    for (;;) {
      await lost;
      if (this.closed) return;
      console.error("live updates: the Redis connection was lost; reconnecting");
      for (let wait = RETRY_MIN_MS; ; wait = Math.min(wait * 2, RETRY_MAX_MS)) {
        await Bun.sleep(wait);
        if (this.closed) return;
        try {
          ({ lost } = await this.listen());
          break;
        } catch {}
      }
      // The command connection may have given up its own retries meanwhile.
      if (!this.commands.connected) await this.commands.connect().catch(() => {});
      console.error("live updates: Redis is back");
      this.listener?.resumed();
    }
  }
}

/** How long a process's mark of a view lasts unless renewed (a crashed process's marks lapse). */
const PRESENCE_TTL_MS = 60_000;
const PRESENCE_RENEW_MS = PRESENCE_TTL_MS / 3;

/**
 * Presence shared by every process: a person reading a conversation on a socket of one process
 * is not pushed its messages sent through another. Each process counts its own views and keeps,
 * per viewed conversation, a mark in a Redis sorted set (`offline:presence:{user}:{booking}`,
 * member: the process, score: when the mark lapses), renewed while the view lasts.
 *
 * Marks use the machine's clock, not the app's (tests move that one): they only measure how long
 * a process may go silent, and the lapse is wide enough for clocks a little apart.
 */
export class RedisPresence implements Presence {
  private readonly process = crypto.randomUUID();
  private views = new Map<string, number>();
  private renewal: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly commands: RedisClient) {}

  private key(userId: string, bookingId: string) {
    return `offline:presence:${userId}:${bookingId}`;
  }

  enter(userId: string, bookingId: string) {
    const key = this.key(userId, bookingId);
    const count = (this.views.get(key) ?? 0) + 1;
    this.views.set(key, count);
    if (count === 1) this.mark(key);
    // Unreferenced: renewing marks never keeps a stopping process alive.
    this.renewal ??= setInterval(() => this.views.forEach((_, k) => this.mark(k)), PRESENCE_RENEW_MS).unref();
  }

  leave(userId: string, bookingId: string) {
    const key = this.key(userId, bookingId);
    const left = (this.views.get(key) ?? 0) - 1;
    if (left > 0) {
      this.views.set(key, left);
      return;
    }
    this.views.delete(key);
    this.run("ZREM", [key, this.process]);
    if (!this.views.size && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = null;
    }
  }

  async isViewing(userId: string, bookingId: string) {
    const key = this.key(userId, bookingId);
    if (this.views.has(key)) return true;
    try {
      return Number(await this.commands.send("ZCOUNT", [key, String(Date.now()), "+inf"])) > 0;
    } catch {
      // Redis away: better a notification too many than a message unnoticed.
      return false;
    }
  }

  private mark(key: string) {
    const now = Date.now();
    this.run("ZADD", [key, String(now + PRESENCE_TTL_MS), this.process]);
    this.run("ZREMRANGEBYSCORE", [key, "-inf", String(now)]);
    this.run("PEXPIRE", [key, String(PRESENCE_TTL_MS)]);
  }

  private run(command: string, args: string[]) {
    // Presence is a hint for notifications: a failed update is not worth more than dropping it.
    void this.commands.send(command, args).catch(() => {});
  }
}
