/**
 * Counts events (or amounts, such as bytes) per key in a fixed window, in memory. One process serves the app, so memory is
 * the right place; a restart forgets the counts, which only ever lets someone try again.
 */
export class RateLimiter {
  private hits = new Map<string, { count: number; resetAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Milliseconds until the key may go on (with `amount` more), or 0 when that stays within the limit. */
  retryAfter(key: string, now = Date.now(), amount = 1): number {
    const entry = this.hits.get(key);
    if (!entry || entry.resetAt <= now) return 0;
    return entry.count + amount > this.limit ? entry.resetAt - now : 0;
  }

  /** Events counted for the key in its current window. */
  count(key: string, now = Date.now()): number {
    const entry = this.hits.get(key);
    return !entry || entry.resetAt <= now ? 0 : entry.count;
  }

  hit(key: string, now = Date.now(), amount = 1) {
    const entry = this.hits.get(key);
    if (!entry || entry.resetAt <= now) this.hits.set(key, { count: amount, resetAt: now + this.windowMs });
    else entry.count += amount;
    if (this.hits.size > 50_000) this.sweep(now);
  }

  reset(key: string) {
    this.hits.delete(key);
  }

  private sweep(now: number) {
    for (const [key, entry] of this.hits) if (entry.resetAt <= now) this.hits.delete(key);
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
  ) {
    this.counter = new RateLimiter(Number.POSITIVE_INFINITY, windowMs);
  }

  /** Milliseconds the next attempt for the key waits (0 while under `free`). */
  delay(key: string, now = Date.now()): number {
    const over = this.counter.count(key, now) - this.free;
    return over < 0 ? 0 : Math.min(this.maxMs, this.baseMs * 2 ** over);
  }

  /** Waits as long as `delay` says; answers how long that was. */
  async wait(key: string, now = Date.now()): Promise<number> {
    const ms = this.delay(key, now);
    if (ms > 0) await Bun.sleep(ms);
    return ms;
  }

  hit(key: string, now = Date.now()) {
    this.counter.hit(key, now);
  }
}
