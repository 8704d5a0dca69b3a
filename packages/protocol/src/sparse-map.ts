/**
 * A Map that holds no memory while empty, for bookkeeping that is empty most of the time.
 */
/** What an empty {@link SparseMap} iterates over. */
const NO_ENTRIES: ReadonlyMap<unknown, unknown> = new Map();

/**
 * The part of a Map that per-connection bookkeeping uses, with the Map made on the first `set` and
 * let go once it is empty again. An idle connection (most HTTP sessions, most of the time) has
 * nothing in flight: an empty Map would still cost ~170 bytes. For the Hermes packages.
 */
export class SparseMap<K, V> {
  private map?: Map<K, V> = undefined;

  /** Entries held. */
  get size(): number {
    return this.map === undefined ? 0 : this.map.size;
  }

  /** Like `Map#has`. */
  has(key: K): boolean {
    return this.map !== undefined && this.map.has(key);
  }

  /** Like `Map#get`. */
  get(key: K): V | undefined {
    return this.map?.get(key);
  }

  /** Like `Map#set`; makes the Map if there is none. */
  set(key: K, value: V): this {
    (this.map ??= new Map()).set(key, value);
    return this;
  }

  /** Like `Map#delete`; lets the Map go when it becomes empty. */
  delete(key: K): boolean {
    const map = this.map;
    if (map === undefined || !map.delete(key)) return false;
    if (map.size === 0) this.map = undefined;
    return true;
  }

  /** Like `Map#keys`. */
  keys(): IterableIterator<K> {
    return (this.map ?? (NO_ENTRIES as ReadonlyMap<K, V>)).keys();
  }

  /** Like `Map#entries`. */
  entries(): IterableIterator<[K, V]> {
    return (this.map ?? (NO_ENTRIES as ReadonlyMap<K, V>)).entries();
  }

  /** Like `Map#values`. */
  values(): IterableIterator<V> {
    return (this.map ?? (NO_ENTRIES as ReadonlyMap<K, V>)).values();
  }

  /** Lets every entry go. */
  clear(): void {
    this.map = undefined;
  }
}
