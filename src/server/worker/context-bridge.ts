/**
 * The worker's end of the live-context bridge: a ContextSources whose every call is forwarded to
 * the main thread, which answers from its caches within the review's own context (bridge-host.ts).
 * The engine is synchronous, so the worker blocks for the answer: it posts the call on its channel,
 * then waits on a shared word the main thread bumps after each answer (`Atomics.wait`) and takes
 * the answer off the channel (`receiveMessageOnPort`). It never waits past the job's deadline: a
 * call not answered by then is a rule error naming it (a kind no `apiCall.default` replaces), never
 * a pass. Answers are kept for the rest of the job (bounded), so a foreach asking the same entry for
 * each element crosses once.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import {
  type ApiCallRequest,
  type ContextCaller,
  type ContextSources,
  err,
  type ImageDataRequest,
  type JsonValue,
  type ResourceList,
  type ResourceRead,
  type Result,
} from "../../engine/index.js";
import type { BridgeAnswer, BridgeCall, BridgeInit, BridgeMethod } from "./wire.js";
import { countedPoster } from "./counted-channel.js";

/** Answers a job keeps: beyond it, calls cross again. */
const MEMO_ENTRIES = 4096;

export class ContextBridge {
  private nextId = 1;
  private job = 0;
  private deadlineAt = Number.POSITIVE_INFINITY;
  private readonly memo = new Map<string, Result<JsonValue>>();
  private readonly signal: Int32Array;
  private readonly port: MessagePort;
  /** Posts a call, counted for the main thread (counted-channel.ts). */
  private readonly postCall: (call: BridgeCall) => void;

  constructor(
    private readonly init: BridgeInit,
    /** The worker's clock, in seconds (the deadline's). */
    private readonly now: () => number,
  ) {
    this.port = init.port;
    this.signal = new Int32Array(init.signal);
    this.postCall = countedPoster(init);
  }

  /** The job whose review the next calls belong to, and its deadline on `now`. */
  begin(job: number, deadlineAt: number): void {
    this.job = job;
    this.deadlineAt = deadlineAt;
    this.memo.clear();
  }

  /** One forwarded call's answer, or why there is none. */
  call(method: BridgeMethod, args: readonly unknown[]): Result<JsonValue> {
    const key = `${method}\u0000${JSON.stringify(args)}`;
    const kept = this.memo.get(key);
    if (kept !== undefined) return kept;
    const result = this.cross(method, args);
    if (this.memo.size < MEMO_ENTRIES) this.memo.set(key, result);
    return result;
  }

  private cross(method: BridgeMethod, args: readonly unknown[]): Result<JsonValue> {
    const id = this.nextId++;
    const call: BridgeCall = { id, job: this.job, method, args };
    this.postCall(call);
    for (;;) {
      // Read the word before looking at the channel: an answer posted after the look changes it, so the wait returns at once.
      const seen = Atomics.load(this.signal, 0);
      const got = receiveMessageOnPort(this.port) as { message: BridgeAnswer } | undefined;
      if (got !== undefined) {
        if (got.message.id === id) return got.message.result;
        continue; // an answer to a call that gave up earlier
      }
      const left = (this.deadlineAt - this.now()) * 1000;
      if (left <= 0 || Atomics.wait(this.signal, 0, seen, left) === "timed-out")
        return err(
          "not-ready",
          `bylaw: the live context did not answer the evaluation worker's ${method} call before the review's deadline`,
        );
    }
  }

  /** The engine's ContextSources over this bridge: the methods the main thread's live port has. */
  sources(): ContextSources {
    const { canLoad, methods } = this.init;
    const has = new Set(methods);
    const c = (method: BridgeMethod, ...args: unknown[]): Result<JsonValue> => this.call(method, args);
    return {
      unloadable: "error",
      canLoad: (kind) => canLoad[kind],
      configMap: (namespace: string, name: string, caller?: ContextCaller) => c("configMap", namespace, name, caller),
      apiCall: (request: ApiCallRequest, caller?: ContextCaller) => c("apiCall", request, caller),
      globalReference: (name: string, caller?: ContextCaller) => c("globalReference", name, caller),
      imageData: (reference: string, request?: ImageDataRequest) => c("imageData", reference, request),
      ...(has.has("getResource")
        ? { getResource: (request: ResourceRead, caller?: ContextCaller) => c("getResource", request, caller) }
        : {}),
      ...(has.has("listResources")
        ? { listResources: (request: ResourceList, caller?: ContextCaller) => c("listResources", request, caller) }
        : {}),
    };
  }
}
