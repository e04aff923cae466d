/**
 * A size-bounded cache in two generations: when the young map fills, it
 * becomes the old one and the oldest generation is dropped whole. Every
 * operation is O(1); evicting one entry at a time by deleting a Map's first
 * key degrades as deleted slots pile up, and these caches sit on the hot path.
 */
export class BoundedCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  /** `capacity`: entries per generation, so at most twice this many are held. */
  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const hit = this.young.get(key);
    if (hit !== undefined) return hit;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.capacity && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
  }

  /** Every entry held, the most recently used generation first. */
  *entries(): IterableIterator<[K, V]> {
    yield* this.young;
    for (const entry of this.old) if (!this.young.has(entry[0])) yield entry;
  }

  /** How many distinct keys are held (counts them: for diagnostics, not hot paths). */
  get size(): number {
    let n = this.young.size;
    for (const key of this.old.keys()) if (!this.young.has(key)) n += 1;
    return n;
  }
}

/**
 * A BoundedCache under two string keys, looked up one after the other. The
 * callers' keys are strings their records already hold (an argument hash, a
 * tool name), which V8 hashes once for the string's lifetime; one key joined
 * from the two would be a new string to build and hash on every lookup, which
 * costs several times the lookup itself on the detectors' hot paths.
 * `capacity` bounds the first keys as BoundedCache does; `perKey` bounds the
 * entries under one first key (they are dropped together when it is reached).
 */
export class BoundedTable<V> {
  private readonly rows: BoundedCache<string, Map<string, V>>;

  constructor(capacity: number, private readonly perKey: number) {
    this.rows = new BoundedCache(capacity);
  }

  get(first: string, second: string): V | undefined {
    return this.rows.get(first)?.get(second);
  }

  set(first: string, second: string, value: V): void {
    let row = this.rows.get(first);
    if (!row) this.rows.set(first, (row = new Map()));
    else if (row.size >= this.perKey && !row.has(second)) row.clear();
    row.set(second, value);
  }
}
