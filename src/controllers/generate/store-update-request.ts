/**
 * Storing one piece of generate work as an UpdateRequest, with retries: a write the API server did
 * not answer (timeout, connection refused), throttled (429) or failed on its side (5xx) is tried
 * again after a backoff, up to `attempts` times, so that a busy API server does not lose the work of
 * an admitted request. A refusal (400-499 other than 429: forbidden, invalid) is not retried: it
 * would fail the same way. The last error is thrown to the caller, who logs the work as lost.
 */
import type { Random } from "../../engine/index.js";
import { Backoff } from "../../kube/backoff.js";
import { KubeError } from "../../kube/kube-client.js";

interface StoreRetryOptions {
  /** How many writes in all (default 4). */
  readonly attempts?: number;
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Runs `post` until it succeeds, retrying what the API server may answer differently next time. */
export async function storeWithRetry(post: () => Promise<unknown>, o: StoreRetryOptions): Promise<void> {
  const backoff = new Backoff({ baseMs: 250, maxMs: 4_000, random: o.random });
  const attempts = o.attempts ?? 4;
  for (let n = 1; ; n++) {
    try {
      await post();
      return;
    } catch (e) {
      if (n >= attempts || !worthRetrying(e)) throw e;
      await o.sleep(backoff.next());
    }
  }
}

function worthRetrying(e: unknown): boolean {
  if (!(e instanceof KubeError)) return true;
  return e.status === 0 || e.status === 429 || e.status >= 500;
}
