/**
 * The memory budget of one informer cache: each stored object is charged the length of its JSON
 * text (a measure close to, and below, what V8 holds for it), and a cache over its budget is
 * unhealthy: it drops its objects and every rule that reads it is an error naming the budget,
 * never an answer from a partial cache.
 */
export class CacheBudget {
  private used = 0;
  private readonly sizes = new Map<string, number>();

  constructor(readonly limitBytes: number) {}

  /** Charges `key` its new size (replacing the old); false when the cache is now over budget. */
  set(key: string, bytes: number): boolean {
    this.used += bytes - (this.sizes.get(key) ?? 0);
    this.sizes.set(key, bytes);
    return this.used <= this.limitBytes;
  }

  delete(key: string): void {
    this.used -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
  }

  clear(): void {
    this.used = 0;
    this.sizes.clear();
  }

  get usedBytes(): number {
    return this.used;
  }
}

/** "12.3 MiB" */
export function mib(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}
