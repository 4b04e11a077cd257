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
