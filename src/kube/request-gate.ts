/**
 * Bylaw's own GET and LIST requests to the API server go through one gate: identical requests in
 * flight at the same time share one answer (coalesced), and requests start no faster than a token
 * bucket allows (client-go's QPS and burst; defaults 20 and 40 here). Clock and sleep are injected.
 */
export interface GateClock {
  /** Monotonic milliseconds. */
  now(): number;
  sleep(ms: number): Promise<void>;
}

interface GateOptions {
  readonly qps: number;
  readonly burst: number;
  readonly clock: GateClock;
}

export class RequestGate {
  private tokens: number;
  private last: number;
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** Requests waiting for a token, in order (each is woken by the one before it). */
  private queue: Promise<void> = Promise.resolve();
  private started = 0;
  private coalesced = 0;

  constructor(private readonly options: GateOptions) {
    this.tokens = options.burst;
    this.last = options.clock.now();
  }

  /** Runs `send` for `key` (e.g. "GET /api/v1/pods"), unless the same key is in flight: then its answer. */
  run<T>(key: string, send: () => Promise<T>): Promise<T> {
    const existing = this.inflight.get(key);
    if (existing !== undefined) {
      this.coalesced++;
      return existing as Promise<T>;
    }
    const p = this.take().then(send);
    this.inflight.set(key, p);
    const clear = (): void => {
      if (this.inflight.get(key) === p) this.inflight.delete(key);
    };
    p.then(clear, clear);
    return p;
  }

  /** Requests sent, and requests that shared another's answer. */
  stats(): { readonly started: number; readonly coalesced: number } {
    return { started: this.started, coalesced: this.coalesced };
  }

  private take(): Promise<void> {
    const turn = this.queue.then(async () => {
      this.refill();
      if (this.tokens < 1) {
        await this.options.clock.sleep(((1 - this.tokens) / this.options.qps) * 1000);
        this.refill();
      }
      this.tokens -= 1;
      this.started++;
    });
    this.queue = turn;
    return turn;
  }

  private refill(): void {
    const now = this.options.clock.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((now - this.last) / 1000) * this.options.qps);
    this.last = now;
  }
}
