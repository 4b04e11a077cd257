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
