/**
 * Load shedding when memory runs short. A sampler (every 250 ms, off the request path) compares
 * the V8 heap in use with the heap budget, and the resident set with the container's memory
 * limit; while either is above `fraction` of its bound, `reason()` names it and the webhook
 * answers new reviews 503 (the API server applies the webhook's failurePolicy). The request path
 * only reads the last verdict: O(1).
 *
 * Heap in use counts garbage until a collection, and a server that sheds allocates little, so it
 * could stay over the line long after the load is gone. Before shedding, the sampler runs a full
 * collection (at most once a second) and decides on what is left.
 *
 * The resident set falls more slowly than what is held: after a spike (a large list read at
 * start-up) the allocator keeps freed pages and reuses them for the next allocations, so resident
 * memory can stay near the limit with little in use. Shedding then frees nothing and would refuse
 * every review for as long as the pages stay; so resident memory sheds only while the heap in use
 * and the buffers outside it (external) are over half the limit.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

interface MemoryPressureOptions {
  /** The container's memory limit in bytes; without one only the heap is watched. */
  readonly limitBytes?: number;
  /** Share of a bound past which reviews are shed (default 0.85). */
  readonly fraction?: number;
  readonly intervalMs?: number;
  readonly readRss?: () => number;
  readonly readHeap?: () => { readonly used: number; readonly limit: number };
  /** Bytes held outside the V8 heap: Buffers and other external memory (default process.memoryUsage().external). */
  readonly readExternal?: () => number;
  /** A full garbage collection (default: V8's, through --expose-gc). */
  readonly collect?: () => void;
  /** Milliseconds, for spacing collections (default Date.now). */
  readonly now?: () => number;
  /** Called when shedding starts (with the reason) and when it stops (undefined), e.g. to log it. */
  readonly onChange?: (reason: string | undefined) => void;
}

interface MemoryPressure {
  /** Why reviews are shed now, or undefined. */
  reason(): string | undefined;
  /** Samples now (the timer does this every intervalMs). */
  check(): void;
  stop(): void;
}

const MIB = 1024 * 1024;

/** Resident memory sheds only while the heap in use and external memory are above this share of the limit. */
const HELD_FRACTION = 0.5;

/**
 * The heap the webhook plans for: V8's own limit (which Node sizes from the container's memory
 * limit at start-up), and at most 60% of the container limit, so the rest (code, TLS and socket
 * buffers, bodies being read) fits beside it.
 */
export function heapBudgetBytes(v8Limit: number, limitBytes: number | undefined): number {
  return limitBytes === undefined ? v8Limit : Math.min(v8Limit, Math.floor(limitBytes * 0.6));
}

export function watchMemoryPressure(options: MemoryPressureOptions = {}): MemoryPressure {
  const fraction = options.fraction ?? 0.85;
  const readRss = options.readRss ?? (() => process.memoryUsage.rss());
  const readHeap =
    options.readHeap ??
    (() => {
      const h = getHeapStatistics();
      return { used: h.used_heap_size, limit: h.heap_size_limit };
    });
  const readExternal = options.readExternal ?? (() => process.memoryUsage().external);
  const now = options.now ?? Date.now;
  let collect = options.collect;
  let lastCollect = Number.NEGATIVE_INFINITY;
  let current: string | undefined;

  const over = (): string | undefined => {
    const heap = readHeap();
    const heapBudget = heapBudgetBytes(heap.limit, options.limitBytes);
    if (heap.used > heapBudget * fraction) return `heap ${mib(heap.used)} of ${mib(heapBudget)}`;
    if (options.limitBytes !== undefined) {
      const rss = readRss();
      if (rss > options.limitBytes * fraction && heap.used + readExternal() > options.limitBytes * HELD_FRACTION)
        return `resident memory ${mib(rss)} of the ${mib(options.limitBytes)} limit`;
    }
    return undefined;
  };

  const check = (): void => {
    let found = over();
    if (found !== undefined && now() - lastCollect >= 1000) {
      collect ??= fullCollection();
      lastCollect = now();
      collect();
      found = over();
    }
    const changed = (found === undefined) !== (current === undefined);
    current = found;
    if (changed) options.onChange?.(found);
  };

  const timer = setInterval(check, options.intervalMs ?? 250);
  timer.unref();
  return {
    reason: () => current,
    check,
    stop: () => clearInterval(timer),
  };
}

function fullCollection(): () => void {
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    if (typeof gc === "function") return () => (gc as () => void)();
  } catch {
    // No collection on demand: shedding then ends when V8 collects on its own.
  }
  return () => undefined;
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(0)} MiB`;
}
