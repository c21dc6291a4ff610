/**
 * The per-review record of network calls (docs/adr/0012). The engine is synchronous; an apiCall
 * POST or a service call is not. While a review is evaluated inside `ReviewCalls.within`, the live
 * context port (live-context.ts) asks the record for each such call:
 * - answered before in this review: the stored answer, at once;
 * - not yet: the call is recorded (made at most once per review) and the port answers a "pending"
 *   error, which no `apiCall.default` replaces (engine ports.ts).
 * The server then `settle()`s the record (the calls in parallel, bounded, under the review's
 * deadline) and evaluates the review again, which now finds the answers (admission/review-calls-loop.ts).
 * The record is found through AsyncLocalStorage, so a review finished off its batch (a later turn of
 * the event loop) still reads its own record; outside any review there is none.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { err, type JsonValue, type Result } from "../engine/index.js";

/** Most distinct network calls one review may make; one more is a rule error naming the limit. */
export const MAX_CALLS_PER_REVIEW = 32;
/** Calls of one review in flight at once. */
const CALLS_IN_PARALLEL = 8;

type Make = (signal: AbortSignal) => Promise<Result<JsonValue>>;

class ReviewCalls {
  private readonly answers = new Map<string, Result<JsonValue>>();
  private readonly waiting = new Map<string, { readonly what: string; readonly make: Make }>();

  constructor(private readonly scopes: CallScopes) {}

  /** Calls recorded and not made yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Calls made (or refused for the limit) so far. */
  get made(): number {
    return this.answers.size;
  }

  /** Runs `fn` with this record as the port's per-review cache, through its async continuations too. */
  within<T>(fn: () => T): T {
    return this.scopes.storage.run(this, fn);
  }

  /** The answer for `key`, or a "pending" error after recording how to make the call. */
  answer(key: string, what: string, make: Make): Result<JsonValue> {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    if (!this.waiting.has(key)) {
      if (this.answers.size + this.waiting.size >= MAX_CALLS_PER_REVIEW) {
        return err(
          "refused",
          `${what}: one admission review may make at most ${MAX_CALLS_PER_REVIEW} network calls (apiCall POST or service); this one is not made`,
        );
      }
      this.waiting.set(key, { what, make });
    }
    return err("pending", `${what}: the call has not been made yet`);
  }

  /**
   * Makes the recorded calls, at most CALLS_IN_PARALLEL at a time, and stores their answers. A call
   * still running after `timeoutMs` is aborted and answered as an error naming the deadline.
   */
  async settle(timeoutMs: number): Promise<void> {
    const todo = [...this.waiting];
    this.waiting.clear();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), Math.max(0, timeoutMs));
    // A call that ignores the signal is still not waited for past the deadline.
    const aborted = new Promise<undefined>((resolve) =>
      abort.signal.addEventListener("abort", () => resolve(undefined), { once: true }),
    );
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        const [key, { what, make }] = todo[next++] as [string, { what: string; make: Make }];
        let answer: Result<JsonValue> | undefined;
        try {
          answer = abort.signal.aborted ? undefined : await Promise.race([make(abort.signal), aborted]);
        } catch (e) {
          answer = err("context", `${what}: ${e instanceof Error ? e.message : String(e)}`);
        }
        if (answer === undefined || (abort.signal.aborted && answer.ok))
          answer = err(
            "context",
            `${what}: the call did not answer within the review's deadline (${Math.round(timeoutMs)} ms)`,
          );
        this.answers.set(key, answer);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(CALLS_IN_PARALLEL, todo.length) }, worker));
    } finally {
      clearTimeout(timer);
      abort.abort();
    }
  }
}

/** Where the port finds the record of the review being evaluated. One per server. */
export class CallScopes {
  readonly storage = new AsyncLocalStorage<ReviewCalls>();

  /** A fresh record for one review. */
  begin(): ReviewCalls {
    return new ReviewCalls(this);
  }

  /** The record of the review being evaluated, if any. */
  current(): ReviewCalls | undefined {
    return this.storage.getStore();
  }
}
