/**
 * A channel from an evaluation worker to the main thread that the main thread can also read in the
 * middle of its own work, not only when its event loop turns. The worker posts a message and then
 * bumps a shared counter (`countedPoster`); the main thread handles messages as they arrive, and
 * `drain()` takes at once, with `receiveMessageOnPort`, every message the counter says was posted and
 * not yet handled. With none waiting, `drain()` is one shared-word read, cheap enough to call between
 * every two policies of a batch. Used for the live-context calls a worker blocks on (bridge-host.ts)
 * and for the end of its jobs (worker-pool.ts), so a worker neither waits on a call nor idles after a
 * job while the main thread is busy.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort } from "node:worker_threads";

/** The worker's end: what it posts on, and the counter it bumps after each post. */
export interface CountedPort {
  readonly port: MessagePort;
  readonly posted: SharedArrayBuffer;
}

export interface CountedChannel {
  /** The worker's end (transfer `worker.port`). */
  readonly worker: CountedPort;
  /** Sends a message back to the worker on the same channel. */
  readonly send: (message: unknown) => void;
  /** Handles now every message posted and not yet handled; whether there was any. */
  readonly drain: () => boolean;
  readonly close: () => void;
}

/** A channel whose every message from the worker goes to `handle`, once, in order. */
export function countedChannel<T>(handle: (message: T) => void): CountedChannel {
  const { port1, port2 } = new MessageChannel();
  const posted = new SharedArrayBuffer(4);
  const count = new Int32Array(posted);
  let handled = 0;
  const take = (message: T): void => {
    handled++;
    handle(message);
  };
  port1.on("message", take);
  port1.unref();
  return {
    worker: { port: port2, posted },
    send: (message) => port1.postMessage(message),
    drain: () => {
      let any = false;
      while (Atomics.load(count, 0) !== handled) {
        const got = receiveMessageOnPort(port1) as { message: T } | undefined;
        if (got === undefined) break; // counted but not on the channel yet: the listener takes it
        take(got.message);
        any = true;
      }
      return any;
    },
    close: () => port1.close(),
  };
}

/** The worker's post on its end: the message, then the count the main thread's `drain()` reads. */
export function countedPoster(end: CountedPort): (message: unknown) => void {
  const count = new Int32Array(end.posted);
  return (message) => {
    end.port.postMessage(message);
    Atomics.add(count, 0, 1);
  };
}
