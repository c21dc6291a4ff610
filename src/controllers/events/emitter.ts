/**
 * The one Events emitter of the server process (admission, background scans, generate, cleanup):
 * `emit` only queues, in constant time, so it never delays an admission answer; a few workers post
 * the queue to the API server on later turns of the event loop. The queue is bounded (Kyverno's
 * `--maxQueuedEvents`, 1000 by default): past it an Event is dropped and counted
 * (`kyverno_events_dropped_total`), so a tenant creating thousands of violating objects can neither
 * grow Bylaw's memory nor send the API server more than `workers` requests at a time. An Event the
 * API server refuses is logged and not retried: Events are best effort, as in Kyverno.
 */
import type { EventDraft, KubeEvent } from "./event-object.js";

interface EventsEmitterOptions {
  /** Writes one Event (src/kube: POST to events.k8s.io/v1). */
  readonly post: (event: KubeEvent) => Promise<void>;
  /** Events waiting at most; more are dropped. */
  readonly maxQueued: number;
  /** Posts in flight at most; default 2. */
  readonly workers?: number;
  /** One Event dropped because the queue was full. */
  readonly onDrop?: () => void;
  /** One Event the API server did not take. */
  readonly onError?: (error: unknown, event: KubeEvent) => void;
  /** Runs `f` on a later turn of the event loop (setImmediate; a test may run it at once). */
  readonly later?: (f: () => void) => void;
}

/** Where components put their Events. */
interface EventsSink {
  /** Queues the Event (a draft is built only if it is queued); false when it was dropped (queue full, or closed). */
  emit(event: KubeEvent | EventDraft): boolean;
}

export class EventsEmitter implements EventsSink {
  readonly #o: EventsEmitterOptions;
  readonly #later: (f: () => void) => void;
  #queue: KubeEvent[] = [];
  #head = 0;
  #running = 0;
  #closed = false;
  #dropped = 0;

  constructor(options: EventsEmitterOptions) {
    this.#o = options;
    this.#later = options.later ?? ((f) => void setImmediate(f));
  }

  emit(event: KubeEvent | EventDraft): boolean {
    if (this.#closed || this.queued >= this.#o.maxQueued) {
      this.#dropped++;
      safely(() => this.#o.onDrop?.());
      return false;
    }
    this.#queue.push(typeof event === "function" ? event() : event);
    if (this.#running < (this.#o.workers ?? 2)) {
      this.#running++;
      this.#later(() => void this.#work());
    }
    return true;
  }

  /** Events waiting to be posted. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Events dropped since the start. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Stops taking Events; those queued are dropped. */
  close(): void {
    this.#closed = true;
    this.#queue = [];
    this.#head = 0;
  }

  async #work(): Promise<void> {
    try {
      for (let next = this.#take(); next !== undefined; next = this.#take()) {
        const event = next;
        await this.#o.post(event).catch((e: unknown) => safely(() => this.#o.onError?.(e, event)));
      }
    } finally {
      this.#running--;
    }
  }

  #take(): KubeEvent | undefined {
    if (this.#head >= this.#queue.length) return undefined;
    const event = this.#queue[this.#head++];
    // Drop the taken part now and then, so the array does not keep what was posted.
    if (this.#head >= 1024 || this.#head === this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    return event;
  }
}

function safely(f: () => void): void {
  try {
    f();
  } catch {
    // a counter or a log line never stops the emitter
  }
}
