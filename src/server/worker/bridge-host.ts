/**
 * The main thread's end of the live-context bridge (context-bridge.ts is the worker's): it answers
 * each call a worker forwards from the main thread's live ContextSources, inside the context of the
 * review the call belongs to (its record of network calls, found through AsyncLocalStorage, is that
 * review's), then bumps the shared word the worker waits on. An answer over the size bound, one
 * that cannot be cloned, or a call for a job that has ended is an error the rule reports, never a
 * value the policy chose.
 */
import { type ContextSources, err, type JsonValue, type Result } from "../../engine/index.js";
import { jsonSizeOver } from "./answer-size.js";
import type { BridgeAnswer, BridgeCall, BridgeInit, BridgeMethod, LoadKind } from "./wire.js";
import { countedChannel } from "./counted-channel.js";

/** The largest answer that crosses to a worker (its JSON size, about). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** Runs a forwarded call within its review's context; undefined when the job is not running any more. */
type JobContext = (job: number) => (<T>(fn: () => T) => T) | undefined;

export interface HostedBridge {
  /** What the worker is given (transfer `init.port`). */
  readonly init: BridgeInit;
  /**
   * Answers now the calls the worker posted and this thread has not answered yet (counted-channel.ts):
   * for a caller in a long stretch of work on this thread (a batch), so that the worker, blocked on a
   * call, does not wait for the event loop to turn. Whether there was any.
   */
  answerWaiting(): boolean;
  close(): void;
}

const LOAD_KINDS: readonly LoadKind[] = ["configMap", "apiCall", "imageRegistry", "globalReference"];
const OPTIONAL: readonly BridgeMethod[] = ["getResource", "listResources"];

/** A bridge for one worker, answering from `sources` within each call's job context. */
export function hostBridge(sources: ContextSources, contextOf: JobContext): HostedBridge {
  const signal = new SharedArrayBuffer(4);
  const word = new Int32Array(signal);
  const channel = countedChannel((call: BridgeCall) =>
    answer(channel.send, word, call, () => resultOf(sources, contextOf, call)),
  );
  const canLoad = Object.fromEntries(LOAD_KINDS.map((k) => [k, sources.canLoad(k)])) as Record<LoadKind, boolean>;
  const methods: BridgeMethod[] = [
    "configMap",
    "apiCall",
    "globalReference",
    "imageData",
    ...OPTIONAL.filter((m) => sources[m] !== undefined),
  ];
  return {
    init: { ...channel.worker, signal, canLoad, methods },
    answerWaiting: channel.drain,
    close: channel.close,
  };
}

function answer(
  send: (answer: BridgeAnswer) => void,
  word: Int32Array,
  call: BridgeCall,
  compute: () => Result<JsonValue>,
): void {
  const reply = (result: Result<JsonValue>): void => send({ id: call.id, result });
  try {
    reply(compute());
  } catch (e) {
    // An answer that cannot be cloned (not plain data) says so instead.
    reply(
      err("not-ready", `bylaw: the ${call.method} answer could not be sent to the evaluation worker: ${message(e)}`),
    );
  }
  Atomics.add(word, 0, 1);
  Atomics.notify(word, 0);
}

function resultOf(sources: ContextSources, contextOf: JobContext, call: BridgeCall): Result<JsonValue> {
  const within = contextOf(call.job);
  if (within === undefined) return err("not-ready", `bylaw: the review of this ${call.method} call has ended`);
  let result: Result<JsonValue>;
  try {
    result = within(() => dispatch(sources, call));
  } catch (e) {
    return err("not-ready", `bylaw: the live context failed to answer a ${call.method} call: ${message(e)}`);
  }
  if (result.ok && jsonSizeOver(result.value, MAX_ANSWER_BYTES))
    return err(
      "not-ready",
      `bylaw: the ${call.method} answer is over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, more than an evaluation worker takes; narrow what the entry reads`,
    );
  return result;
}

/** Calls the port method the call names with its arguments (plain data, as the worker's engine passed them). */
function dispatch(sources: ContextSources, call: BridgeCall): Result<JsonValue> {
  const a = call.args as [never, never, never];
  switch (call.method) {
    case "configMap":
      return sources.configMap(a[0], a[1], a[2]);
    case "apiCall":
      return sources.apiCall(a[0], a[1]);
    case "globalReference":
      return sources.globalReference(a[0], a[1]);
    case "imageData":
      return sources.imageData(a[0], a[1]);
    case "getResource":
      return sources.getResource?.(a[0], a[1]) ?? err("unsupported", "this live context reads no objects");
    case "listResources":
      return sources.listResources?.(a[0], a[1]) ?? err("unsupported", "this live context lists no objects");
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
