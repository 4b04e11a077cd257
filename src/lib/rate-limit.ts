import type { RedisClient } from "bun";

/**
 * Where a limiter keeps its counts: one process's memory, or Redis shared by every process
 * (`REDIS_URL`), so that several processes or machines count one person's attempts together.
 */
export interface Counts {
  /** The key's count in its current window and when that window ends; null when it has none. */
  get(key: string, now: number): Promise<{ count: number; resetAt: number } | null>;
  /** Adds `amount` to the key's count, starting a window of `windowMs` when it has none. */
  add(key: string, amount: number, windowMs: number, now: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Counts in this process's memory: all there is with one process; a restart forgets them, which only ever lets someone try again. */
export class MemoryCounts implements Counts {
  private hits = new Map<string, { count: number; resetAt: number }>();

  async get(key: string, now: number) {
    const entry = this.hits.get(key);
    return !entry || entry.resetAt <= now ? null : { ...entry };
  }

  async add(key: string, amount: number, windowMs: number, now: number) {
    const entry = this.hits.get(key);
    if (!entry || entry.resetAt <= now) this.hits.set(key, { count: amount, resetAt: now + windowMs });
    else entry.count += amount;
    if (this.hits.size > 50_000) this.sweep(now);
  }

  async delete(key: string) {
    this.hits.delete(key);
  }

  private sweep(now: number) {
    for (const [key, entry] of this.hits) if (entry.resetAt <= now) this.hits.delete(key);
  }
}

/**
 * Adds to a count and starts its window when it has none, in one step (a Lua script runs whole).
 * "Has none" is read from the key's time to live, so a key that somehow lost it gets one again.
 */
const ADD_SCRIPT = `local c = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return c`;
/** How long a count waits on Redis before this process counts in its memory instead: a limit must never hold a request up. */
const REDIS_WAIT_MS = 250;
/** The count and the milliseconds left of its window, read together. */
const GET_SCRIPT = `return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`;

/**
 * Counts in Redis, shared by every process. A key is `offline:limit:{limiter}:{HMAC of the key}`
 * (the keys are emails and addresses; Redis holds only their HMACs under the app's secret, which
 * cannot be reversed by trying every address) and expires with its window. The window is Redis's
 * clock, not the app's: the limits count real attempts.
 *
 * When Redis cannot be reached, or does not answer within `REDIS_WAIT_MS`, this process counts
 * in its memory until it can, as it would with one process: an outage weakens a limit to one
 * process's share, never shuts people out or holds them up.
 */
export class RedisCounts implements Counts {
  private readonly fallback = new MemoryCounts();
  /** One line in the log per outage, not one per attempt. */
  private failing = false;

  constructor(
    private readonly redis: RedisClient,
    private readonly limiter: string,
    private readonly secret: string,
  ) {}

  private key(key: string) {
    return `offline:limit:${this.limiter}:${new Bun.CryptoHasher("sha256", this.secret).update(key).digest("hex").slice(0, 32)}`;
  }

  private async shared<T>(work: () => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${REDIS_WAIT_MS} ms`)), REDIS_WAIT_MS)));
      const result = await Promise.race([work(), late]);
      if (this.failing) console.error("rate limits: Redis is back; counting there again");
      this.failing = false;
      return result;
    } catch (err) {
      if (!this.failing) console.error(`rate limits: Redis failed (${err instanceof Error ? err.message : String(err)}); counting in this process until it is back`);
      this.failing = true;
      return otherwise();
    } finally {
      clearTimeout(timer);
    }
  }

  get(key: string, now: number) {
    return this.shared(
      async () => {
        const [count, ttl] = (await this.redis.send("EVAL", [GET_SCRIPT, "1", this.key(key)])) as [string | null, number];
        return count === null || ttl <= 0 ? null : { count: Number(count), resetAt: now + ttl };
      },
      () => this.fallback.get(key, now),
    );
  }

  add(key: string, amount: number, windowMs: number, now: number) {
    return this.shared(
      async () => {
        await this.redis.send("EVAL", [ADD_SCRIPT, "1", this.key(key), String(amount), String(windowMs)]);
      },
      () => this.fallback.add(key, amount, windowMs, now),
    );
  }

  delete(key: string) {
    return this.shared(
      async () => {
        await this.redis.send("DEL", [this.key(key)]);
      },
      () => this.fallback.delete(key),
    );
  }
}

/**
 * Counts events (or amounts, such as bytes) per key in a fixed window. The check (`retryAfter`)
 * and the count (`hit`) are separate steps, so callers count only what should count (a failed
 * sign-in, a photo received); requests at the same moment may each pass the check before either
 * is counted, which lets a burst go over by at most its own size.
 */
export class RateLimiter {
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly counts: Counts = new MemoryCounts(),
  ) {}

  /** Milliseconds until the key may go on (with `amount` more), or 0 when that stays within the limit. */
  async retryAfter(key: string, now = Date.now(), amount = 1): Promise<number> {
    const entry = await this.counts.get(key, now);
    if (!entry) return 0;
    return entry.count + amount > this.limit ? entry.resetAt - now : 0;
  }

  /** Events counted for the key in its current window. */
  async count(key: string, now = Date.now()): Promise<number> {
    return (await this.counts.get(key, now))?.count ?? 0;
  }

  hit(key: string, now = Date.now(), amount = 1): Promise<void> {
    return this.counts.add(key, amount, this.windowMs, now);
  }

  reset(key: string): Promise<void> {
    return this.counts.delete(key);
  }
}

/**
 * Slows a key down instead of locking it: after `free` events in the window, every attempt first
 * waits `baseMs`, doubled for each further event, never more than `maxMs`. It never refuses, so
 * nobody can shut a key out by spending events on it.
 */
export class SlowDown {
  private readonly counter: RateLimiter;

  constructor(
    private readonly free: number,
    windowMs: number,
    private readonly baseMs: number,
    private readonly maxMs: number,
    counts: Counts = new MemoryCounts(),
  ) {
    this.counter = new RateLimiter(Number.POSITIVE_INFINITY, windowMs, counts);
  }

  /** Milliseconds the next attempt for the key waits (0 while under `free`). */
  async delay(key: string, now = Date.now()): Promise<number> {
    const over = (await this.counter.count(key, now)) - this.free;
    return over < 0 ? 0 : Math.min(this.maxMs, this.baseMs * 2 ** over);
  }

  /** Waits as long as `delay` says; answers how long that was. */
  async wait(key: string, now = Date.now()): Promise<number> {
    const ms = await this.delay(key, now);
    if (ms > 0) await Bun.sleep(ms);
    return ms;
  }

  hit(key: string, now = Date.now()): Promise<void> {
    return this.counter.hit(key, now);
  }
}
