import type { LaneName } from "./index";

/**
 * The runner's lanes in this process (src/jobs/index.ts `LANES` says which there are): each has its
 * places, how many of its attempts may run at once, handed out in the order they were asked for,
 * so a lane whose work is stuck fills its own places and no other lane's.
 */

/** A lane's places in this process: how many of its attempts may run at once, and who waits for one. */
class Places {
  private used = 0;
  private waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves once a place is ours; places are handed out in the order they were asked for. */
  take(): Promise<void> {
    if (!this.waiting.length && this.used < this.size) {
      this.used++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Takes up to `n` more places if they are free and nobody waits for one; answers how many. */
  takeFree(n: number): number {
    if (this.waiting.length) return 0;
    const taken = Math.max(0, Math.min(n, this.size - this.used));
    this.used += taken;
    return taken;
  }

  /** Gives `n` places back, each to whoever has waited longest, if anyone waits. */
  give(n = 1) {
    for (let i = 0; i < n; i++) {
      const next = this.waiting.shift();
      if (next) next();
      else this.used--;
    }
  }
}

export interface Lane {
  name: LaneName;
  places: Places;
  /** The lane's drain under way, if any. */
  draining: Promise<number> | null;
  /** Wake a drain that waits for its attempts, so it looks for work that became due meanwhile. */
  wakers: Set<() => void>;
}

/** The lanes, in the order the runner looks at them (money first), with all their places free. */
export function lanesOf(lanes: Readonly<Record<LaneName, { concurrency: number }>>): Lane[] {
  return (Object.keys(lanes) as LaneName[]).map((name) => ({ name, places: new Places(lanes[name].concurrency), draining: null, wakers: new Set() }));
}
