/**
 * The memory budget of one informer cache: each stored object is charged the length of its JSON
 * text (a measure close to, and below, what V8 holds for it), and a cache over its budget is
 * unhealthy: it drops its objects and every rule that reads it is an error naming the budget,
 * never an answer from a partial cache.
 *
 * The caches of live context also share a pool (CachePool): a total over all of them, and a share
 * of it per namespace, so that one namespace's objects cannot take the memory every other
 * namespace's and the cluster policies' reads need. Cluster-scoped objects count only towards the
 * total.
 */
export class CacheBudget {
  private used = 0;
  private readonly sizes = new Map<string, { readonly namespace: string; readonly bytes: number }>();

  constructor(
    readonly limitBytes: number,
    private readonly pool?: CachePool,
  ) {}

  /** Charges `key` its new size (replacing the old); false when the cache is now over budget. */
  set(key: string, bytes: number): boolean {
    return this.charge(key, "", bytes) === "ok";
  }

  /**
   * Charges `key` (an object of `namespace`, "" when cluster-scoped) its new size, replacing the
   * old; the charge stands whatever the answer: `namespace` when that namespace is now over its
   * share of the pool, `over` when this cache or the pool is over its total, else `ok`.
   */
  charge(key: string, namespace: string, bytes: number): Charge {
    this.delete(key);
    this.used += bytes;
    this.sizes.set(key, { namespace, bytes });
    this.pool?.add(namespace, bytes);
    return this.status(namespace);
  }

  /** Whether this cache, the pool and `namespace`'s share of it are within their limits now. */
  status(namespace: string): Charge {
    if (this.pool !== undefined && namespace !== "" && this.pool.namespaceUsed(namespace) > this.pool.namespaceBytes)
      return "namespace";
    if (this.used > this.limitBytes) return "over";
    return this.pool !== undefined && this.pool.usedBytes > this.pool.totalBytes ? "over" : "ok";
  }

  /** The size charged for `key`, if any. */
  sizeOf(key: string): number | undefined {
    return this.sizes.get(key)?.bytes;
  }

  delete(key: string): void {
    const old = this.sizes.get(key);
    if (old === undefined) return;
    this.used -= old.bytes;
    this.pool?.add(old.namespace, -old.bytes);
    this.sizes.delete(key);
  }

  clear(): void {
    for (const key of [...this.sizes.keys()]) this.delete(key);
  }

  get usedBytes(): number {
    return this.used;
  }

  /** Bytes this cache may still take: the least of what is left of its own limit and of the pool's total. */
  get availableBytes(): number {
    const own = this.limitBytes - this.used;
    return Math.max(0, this.pool === undefined ? own : Math.min(own, this.pool.totalBytes - this.pool.usedBytes));
  }

  /** What the pool's limits are, for messages. */
  get limits(): { readonly cacheBytes: number; readonly totalBytes?: number; readonly namespaceBytes?: number } {
    return this.pool === undefined
      ? { cacheBytes: this.limitBytes }
      : { cacheBytes: this.limitBytes, totalBytes: this.pool.totalBytes, namespaceBytes: this.pool.namespaceBytes };
  }

  /** Bytes `namespace`'s objects may still take of the pool (Infinity without a pool or for cluster-scoped objects). */
  namespaceAvailable(namespace: string): number {
    if (this.pool === undefined || namespace === "") return Infinity;
    return this.pool.namespaceBytes - this.pool.namespaceUsed(namespace);
  }
}

type Charge = "ok" | "over" | "namespace";

/** The bytes all live-context caches hold together, and per namespace (across every cache). */
export class CachePool {
  private used = 0;
  private readonly byNamespace = new Map<string, number>();

  constructor(
    readonly totalBytes: number,
    /** A namespace's share of the total: its objects in every cache together. */
    readonly namespaceBytes: number,
  ) {}

  add(namespace: string, bytes: number): void {
    this.used += bytes;
    if (namespace === "") return;
    const n = (this.byNamespace.get(namespace) ?? 0) + bytes;
    if (n <= 0) this.byNamespace.delete(namespace);
    else this.byNamespace.set(namespace, n);
  }

  get usedBytes(): number {
    return this.used;
  }

  namespaceUsed(namespace: string): number {
    return this.byNamespace.get(namespace) ?? 0;
  }
}

/** "12.3 MiB" */
export function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
