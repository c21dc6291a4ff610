/**
 * Reviews whose bodies arrive in the same turn of the event loop are handled together, in the
 * check phase that follows (setImmediate): every handler of the batch runs first, then every
 * answer is written. Under concurrent load (a rollout, many controllers) the engine's code and
 * data then stay in the CPU caches from one review to the next instead of being evicted by the
 * TLS and socket work in between, and the writes go out back to back. Measured with
 * `npm run bench:webhook`: about 70 → 50 CPU µs per review with the 17 PSS policies.
 *
 * With one review in flight a batch is that review alone, one scheduling hop later. A batch is cut
 * into chunks of at most `maxPerChunk` reviews, each evaluated and then written before the next
 * chunk starts, so the first review of a large burst does not wait for the last one.
 */

export interface TurnBatch {
  /** Queue work (a review's handling); it runs in the next batch. */
  add(work: () => void): void;
  /** Write an answer: at once, or, while a chunk is being evaluated, right after its evaluation. */
  send(write: () => void): void;
}

interface TurnBatchOptions {
  /** Reviews evaluated before their answers are written (default 16). */
  readonly maxPerChunk?: number;
  /** Runs the batch later in this turn of the event loop (default setImmediate). */
  readonly schedule?: (run: () => void) => void;
  /** A queued work or write threw; the others still run. */
  readonly onError?: (error: unknown) => void;
}

export const DEFAULT_MAX_PER_CHUNK = 16;

export function createTurnBatch(options: TurnBatchOptions = {}): TurnBatch {
  const maxPerChunk = Math.max(1, options.maxPerChunk ?? DEFAULT_MAX_PER_CHUNK);
  const schedule = options.schedule ?? ((run: () => void) => void setImmediate(run));
  let queue: (() => void)[] = [];
  let scheduled = false;
  /** Answers held back while a chunk is evaluated; undefined outside that phase. */
  let held: (() => void)[] | undefined;

  function guard(f: () => void): void {
    try {
      f();
    } catch (e) {
      try {
        options.onError?.(e);
      } catch {
        // The error sink itself failed; the batch goes on.
      }
    }
  }

  function run(): void {
    scheduled = false;
    const batch = queue;
    queue = [];
    for (let start = 0; start < batch.length; start += maxPerChunk) {
      const end = Math.min(batch.length, start + maxPerChunk);
      const writes: (() => void)[] = [];
      held = writes;
      for (let i = start; i < end; i++) guard(batch[i] as () => void);
      held = undefined;
      for (const write of writes) guard(write);
    }
  }

  return {
    add(work) {
      queue.push(work);
      if (!scheduled) {
        scheduled = true;
        schedule(run);
      }
    },
    send(write) {
      if (held !== undefined) held.push(write);
      else write();
    },
  };
}
