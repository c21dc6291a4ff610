/**
 * The counter `bylaw test`'s threads share out suite files with: each thread takes the next index
 * itself (an atomic add on shared memory), so no thread waits for another to be handed work.
 */

/**
 * Suites a thread runs at once: while one waits for its files, another evaluates (file reads go
 * through libuv's pool).
 */
export const IN_FLIGHT = 4;

/** The next file index not yet taken by any thread, or undefined when all `total` are taken. */
export function takeIndex(counter: Int32Array, total: number): number | undefined {
  if (Atomics.load(counter, 0) >= total) return undefined;
  const i = Atomics.add(counter, 0, 1);
  return i < total ? i : undefined;
}
