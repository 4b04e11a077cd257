/**
 * `make(key)` made once per key object and handed back the same afterwards, for as long as the
 * key lives (a WeakMap): prepared statements per database handle, what is made of a shared
 * (cached) read for as long as that read is kept.
 */
export function madeOnce<K extends object, T>(make: (key: K) => T): (key: K) => T {
  const made = new WeakMap<K, T>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

/**
 * What was used most recently, up to `max` in all: each entry counts its `size` (1 unless said),
 * and the least recently used go first when the total is over. Reading an entry makes it the most
 * recent. Kept answers by their bytes, page shapes, a kept read's last result per key.
 */
export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private total = 0;
  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    // Most recently used last: the first entry is the one to drop.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: K, value: V, size = 1): void {
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.entries.delete(key);
      this.total -= old.size;
    }
    this.entries.set(key, { value, size });
    this.total += size;
    for (const [dropped, entry] of this.entries) {
      if (this.total <= this.max) break;
      this.entries.delete(dropped);
      this.total -= entry.size;
    }
  }
}
