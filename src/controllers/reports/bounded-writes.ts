/**
 * A scan pass's report writes, at most `limit` in flight: the pass scans the next resource while
 * earlier reports are on their way to the API server, so a pass takes about (resources × the API
 * server's latency) / limit instead of resources × latency, and the process's fixed per-second work
 * (watches, leases, timers) is paid over that shorter time. A failed task does not stop the others;
 * `drain` waits for all of them and then throws the first failure.
 */
export class BoundedWrites {
  readonly #running = new Set<Promise<void>>();
  readonly #failures: Error[] = [];

  constructor(private readonly limit: number) {}

  /** Starts `task` once fewer than `limit` run (waiting for one to end if needed). */
  async start(task: () => Promise<void>): Promise<void> {
    while (this.#running.size >= Math.max(1, this.limit)) await Promise.race(this.#running);
    const running: Promise<void> = task()
      .catch((e: unknown) => void this.#failures.push(e instanceof Error ? e : new Error(String(e))))
      .finally(() => this.#running.delete(running));
    this.#running.add(running);
  }

  /** Waits for every task started; throws the first failure, if any. */
  async drain(): Promise<void> {
    await this.settle();
    const [first] = this.#failures.splice(0);
    if (first !== undefined) throw first;
  }

  /** Waits for every task started, whatever they gave. */
  async settle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all(this.#running);
  }
}
