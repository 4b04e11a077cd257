import type { RedisClient } from "bun";

/** What a take answers: whether it was counted, the key's count after it, and when its window ends. */
export interface Taken {
  taken: boolean;
  count: number;
  resetAt: number;
}

/**
 * Where a limiter keeps its counts: one process's memory, or Redis shared by every process
 * (`REDIS_URL`), so that several processes or machines count one person's attempts together.
 */
export interface Counts {
  /** The key's count in its current window and when that window ends; null when it has none. */
  get(key: string, now: number): Promise<{ count: number; resetAt: number } | null>;
  /**
   * Adds `amount` to the key's count unless that would take it over `limit`, starting a window of
   * `windowMs` when it has none, in one step: of attempts arriving together, no two read the same
   * count, so no more pass than the limit allows.
   */
  take(key: string, amount: number, limit: number, windowMs: number, now: number): Promise<Taken>;
  /** Takes `amount` back from the key's count in its current window, never below zero; starts no window. */
  giveBack(key: string, amount: number, now: number): Promise<void>;
  delete(key: string): Promise<void>;
}

/** Counts in this process's memory: all there is with one process; a restart forgets them, which only ever lets someone try again. */
export class MemoryCounts implements Counts {
  private hits = new Map<string, { count: number; resetAt: number }>();

  private current(key: string, now: number) {
    const entry = this.hits.get(key);
    return entry && entry.resetAt > now ? entry : undefined;
  }

  async get(key: string, now: number) {
    const entry = this.current(key, now);
    return entry ? { ...entry } : null;
  }

  // Read and written with no await in between: JavaScript runs it whole, as Redis runs a script.
  async take(key: string, amount: number, limit: number, windowMs: number, now: number): Promise<Taken> {
    const entry = this.current(key, now);
    const count = entry?.count ?? 0;
    const resetAt = entry?.resetAt ?? now + windowMs;
    if (count + amount > limit) return { taken: false, count, resetAt };
    if (entry) entry.count += amount;
    else this.hits.set(key, { count: amount, resetAt });
    if (this.hits.size > 50_000) this.sweep(now);
    return { taken: true, count: count + amount, resetAt };
  }

  async giveBack(key: string, amount: number, now: number) {
    const entry = this.current(key, now);
    if (entry) entry.count = Math.max(0, entry.count - amount);
  }

  async delete(key: string) {
    this.hits.delete(key);
  }

  private sweep(now: number) {
    for (const [key, entry] of this.hits) if (entry.resetAt <= now) this.hits.delete(key);
  }
}

/**
 * Adds to a count unless that passes the limit, and starts its window when it has none, in one
 * step (a Lua script runs whole): answers {taken (1 or 0), the count, milliseconds left of the
 * window}. "Has none" is read from the key's time to live, so a key that somehow lost it gets
 * one again. A limit of -1 is no limit (a slow-down only counts).
 */
const TAKE_SCRIPT = `local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
local amount, limit, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local open = ttl < 0
if open then ttl = window end
if limit >= 0 and count + amount > limit then
  if open and count > 0 then redis.call('PEXPIRE', KEYS[1], window) end
  return {0, count, ttl}
end
count = redis.call('INCRBY', KEYS[1], amount)
if open then redis.call('PEXPIRE', KEYS[1], window) end
return {1, count, ttl}`;
/** Takes back from a count in its window, never below zero, and never makes a key that has none. */
const GIVE_BACK_SCRIPT = `local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count <= 0 then return 0 end
return redis.call('DECRBY', KEYS[1], math.min(count, tonumber(ARGV[1])))`;
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

  take(key: string, amount: number, limit: number, windowMs: number, now: number) {
    return this.shared(
      async (): Promise<Taken> => {
        const args = [TAKE_SCRIPT, "1", this.key(key), String(amount), Number.isFinite(limit) ? String(limit) : "-1", String(windowMs)];
        const [taken, count, ttl] = (await this.redis.send("EVAL", args)) as [number, number, number];
        return { taken: taken === 1, count, resetAt: now + ttl };
      },
      () => this.fallback.take(key, amount, limit, windowMs, now),
    );
  }

  giveBack(key: string, amount: number, now: number) {
    return this.shared(
      async () => {
        await this.redis.send("EVAL", [GIVE_BACK_SCRIPT, "1", this.key(key), String(amount)]);
      },
      () => this.fallback.giveBack(key, amount, now),
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
 * Counts events (or amounts, such as bytes) per key in a fixed window. An attempt is counted
 * before the work it limits (`take`), in one step with the check, so requests arriving together
 * get no more through than the same requests one after another. Work that turns out not to
 * count (a right password, an email not sent after all) is given back (`refund`).
 */
export class RateLimiter {
  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly counts: Counts = new MemoryCounts(),
  ) {}

  /**
   * Counts `amount` for the key if that stays within the limit and answers 0; otherwise counts
   * nothing and answers the milliseconds until the key's window ends.
   */
  async take(key: string, now = Date.now(), amount = 1): Promise<number> {
    const { taken, resetAt } = await this.counts.take(key, amount, this.limit, this.windowMs, now);
    return taken ? 0 : Math.max(1, resetAt - now);
  }

  /** Gives back what `take` counted, when the work it was for did not happen or must not count. */
  refund(key: string, now = Date.now(), amount = 1): Promise<void> {
    return this.counts.giveBack(key, amount, now);
  }

  /**
   * Milliseconds until the key may go on (with `amount` more), or 0, counting nothing: for a
   * screen that says so ahead, or a refusal given before slower checks. Only `take` lets through.
   */
  async retryAfter(key: string, now = Date.now(), amount = 1): Promise<number> {
    const entry = await this.counts.get(key, now);
    if (!entry) return 0;
    return entry.count + amount > this.limit ? entry.resetAt - now : 0;
  }

  /** Events counted for the key in its current window. */
  async count(key: string, now = Date.now()): Promise<number> {
    return (await this.counts.get(key, now))?.count ?? 0;
  }

  reset(key: string): Promise<void> {
    return this.counts.delete(key);
  }
}

/**
 * Takes one attempt from each limiter in turn, each under its own key. When one refuses, what the
 * others took is given back, so a refused request counts nowhere; answers the wait and the
 * limiter that refused (null, and 0, when every one took it).
 */
export async function takeEach(now: number, ...takes: (readonly [RateLimiter, string])[]): Promise<{ retryAfterMs: number; refusedBy: RateLimiter | null }> {
  for (let i = 0; i < takes.length; i++) {
    const [limiter, key] = takes[i]!;
    const wait = await limiter.take(key, now);
    if (wait > 0) {
      await Promise.all(takes.slice(0, i).map(([taken, takenKey]) => taken.refund(takenKey, now)));
      return { retryAfterMs: wait, refusedBy: limiter };
    }
  }
  return { retryAfterMs: 0, refusedBy: null };
}

/**
 * Slows a key down instead of locking it: after `free` events in the window, every attempt first
 * waits `baseMs`, doubled for each further event, never more than `maxMs`. It never refuses, so
 * nobody can shut a key out by spending events on it. Each attempt is counted as it arrives
 * (`take`), so attempts arriving together each get their own place and wait, not the same one.
 */
export class SlowDown {
  constructor(
    private readonly free: number,
    private readonly windowMs: number,
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly counts: Counts = new MemoryCounts(),
  ) {}

  private waitAfter(earlier: number) {
    const over = earlier - this.free;
    return over < 0 ? 0 : Math.min(this.maxMs, this.baseMs * 2 ** over);
  }

  /** Milliseconds the next attempt for the key would wait (0 while under `free`), counting nothing. */
  async delay(key: string, now = Date.now()): Promise<number> {
    return this.waitAfter((await this.counts.get(key, now))?.count ?? 0);
  }

  /** Counts an attempt and answers how long it waits: as long as the attempts counted before it say. */
  async take(key: string, now = Date.now()): Promise<number> {
    const { count } = await this.counts.take(key, 1, Number.POSITIVE_INFINITY, this.windowMs, now);
    return this.waitAfter(count - 1);
  }

  /** Counts an attempt and waits as long as `take` says; answers how long that was. */
  async wait(key: string, now = Date.now()): Promise<number> {
    const ms = await this.take(key, now);
    if (ms > 0) await Bun.sleep(ms);
    return ms;
  }

  /** Gives back an attempt that must not count (the right password). */
  refund(key: string, now = Date.now()): Promise<void> {
    return this.counts.giveBack(key, 1, now);
  }
}
