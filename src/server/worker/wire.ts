/**
 * The messages between the worker pool (main thread) and an evaluation worker. Everything here is
 * plain data that survives structured cloning: policies travel as their own documents (policy-recipe.ts) and are compiled
 * once in each worker, then reused by every snapshot that keeps them; results travel as rule results and are joined back to the main
 * thread's compiled policies by their place in the job.
 */
import type { EngineRequest, JsonObject, JsonValue, Result, RuleResult } from "../../engine/index.js";
import type { RunKind } from "../admission/review-runner.js";
import type { CountedPort } from "./counted-channel.js";
import type { PolicyRecipe } from "./policy-recipe.js";
import type { ClusterTypesState } from "../../kube/openapi-typed-kinds.js";

/** Snapshots a worker keeps compiled: the current one and the one before it (reviews in flight across a reload). */
export const KEEP_SNAPSHOTS = 2;

/**
 * One policy of a snapshot, by its recipe's id (one per policy the main thread compiled): with the
 * recipe and what the policy matches (`policyMatchNames`: a kyverno.io policy's rule names, `""` per
 * CEL matchConstraints, to check the compilation against) when the worker does not hold it compiled
 * from an earlier snapshot it keeps.
 */
export interface SnapshotPolicy {
  readonly id: number;
  readonly recipe?: PolicyRecipe;
  readonly ruleNames?: readonly string[];
}

/**
 * A policy snapshot to compile, in snapshot order. A worker compiles only the policies it does not
 * hold from a snapshot it keeps: a policy added or changed recompiles that policy alone, so a
 * snapshot can be sent as soon as it is loaded, before any review needs it.
 */
export interface SnapshotMessage {
  readonly type: "snapshot";
  readonly id: number;
  readonly policies: readonly SnapshotPolicy[];
  readonly exceptions: readonly JsonObject[];
}

/**
 * The snapshots a worker keeps (the last KEEP_SNAPSHOTS received) and the policy recipes they name.
 * The worker keeps its compiled policies by it, and the pool keeps the same record of each worker
 * (the messages arrive in the order they are sent), so both agree on which recipes need sending.
 */
export class KeptSnapshots {
  readonly #snapshots = new Map<number, readonly number[]>();
  /** Recipe id → the kept snapshots that name it. */
  readonly #uses = new Map<number, number>();

  has(snapshot: number): boolean {
    return this.#snapshots.has(snapshot);
  }

  holds(recipe: number): boolean {
    return this.#uses.has(recipe);
  }

  /** Records a snapshot received; answers the snapshots no longer kept and the recipes no kept snapshot names. */
  add(snapshot: number, recipes: readonly number[]): { snapshots: number[]; recipes: number[] } {
    const gone: { snapshots: number[]; recipes: number[] } = { snapshots: [], recipes: [] };
    this.#forget(snapshot, gone);
    this.#snapshots.set(snapshot, recipes);
    for (const r of new Set(recipes)) this.#uses.set(r, (this.#uses.get(r) ?? 0) + 1);
    for (const oldest of this.#snapshots.keys()) {
      if (this.#snapshots.size <= KEEP_SNAPSHOTS) break;
      this.#forget(oldest, gone);
      gone.snapshots.push(oldest);
    }
    // A snapshot sent again names its recipes again: only those no kept snapshot names are gone.
    gone.recipes = gone.recipes.filter((r) => !this.#uses.has(r));
    return gone;
  }

  #forget(snapshot: number, gone: { recipes: number[] }): void {
    const recipes = this.#snapshots.get(snapshot);
    if (recipes === undefined) return;
    this.#snapshots.delete(snapshot);
    for (const r of new Set(recipes)) {
      const left = (this.#uses.get(r) ?? 1) - 1;
      if (left > 0) this.#uses.set(r, left);
      else {
        this.#uses.delete(r);
        gone.recipes.push(r);
      }
    }
  }
}

/** The engine request as data: the loaded exceptions are the worker's own (`exceptions: true`). */
type WireRequest = Omit<EngineRequest, "exceptions" | "ruleVariables">;

/**
 * Run policies (by index in the snapshot) for one review, with the seconds left before its deadline.
 * `rules[i]`, when set, names the rules of policy i to run: the mutating webhook's plan leaves a
 * kyverno.io policy's mutate-existing rules out (admission/plans.ts); no other kind is narrowed.
 */
export interface RunMessage {
  readonly type: "run";
  readonly kind: RunKind;
  readonly job: number;
  readonly snapshot: number;
  readonly policies: readonly number[];
  readonly rules: readonly (readonly string[] | null)[];
  readonly request: WireRequest;
  readonly exceptions: boolean;
  /** The review's namespace when the cluster facts do not know it (admission/namespace-facts.ts). */
  readonly unknownNamespace?: string;
  readonly remainingSeconds: number;
}

/** The cluster's kinds as the main thread has them typed (`--cluster`), sent before a run when they changed. */
interface TypesMessage {
  readonly type: "types";
  readonly state: ClusterTypesState;
}

export type ToWorker = SnapshotMessage | RunMessage | TypesMessage;

/** One policy of a job finished: its place in the job, its rule results and its time. */
interface DoneMessage {
  readonly type: "done";
  readonly job: number;
  readonly index: number;
  readonly rules: readonly RuleResult[];
  readonly seconds: number;
}

/** A job ended: every policy not reported done was left by the deadline, or, with `error`, could not run. */
interface EndMessage {
  readonly type: "end";
  readonly job: number;
  readonly error?: string;
  /** Mutate: the resource after the finished policies' patches, when they changed it. */
  readonly resource?: JsonObject;
}

export type FromWorker = DoneMessage | EndMessage;

/** The request without what cannot or need not cross: compiled exceptions, functions, the engine's memo. */
export function wireRequest(request: EngineRequest): WireRequest {
  return {
    resource: request.resource,
    ...(request.oldResource !== undefined ? { oldResource: request.oldResource } : {}),
    operation: request.operation,
    ...(request.userInfo !== undefined ? { userInfo: request.userInfo } : {}),
    ...(request.subresource !== undefined ? { subresource: request.subresource } : {}),
    ...(request.matchKind !== undefined ? { matchKind: request.matchKind } : {}),
    namespaceLabels: request.namespaceLabels,
    ...(request.variables !== undefined ? { variables: request.variables } : {}),
    ...(request.background !== undefined ? { background: request.background } : {}),
    ...(request.exceptionNamespaces !== undefined ? { exceptionNamespaces: request.exceptionNamespaces } : {}),
  };
}

/** The live ContextSources calls a worker forwards to the main thread (context-bridge.ts). */
export type BridgeMethod = "configMap" | "apiCall" | "globalReference" | "imageData" | "getResource" | "listResources";

/** The entry kinds `ContextSources.canLoad` answers for. */
export type LoadKind = "configMap" | "apiCall" | "imageRegistry" | "globalReference";

/** One forwarded call: the job whose review it belongs to, the port method and its arguments (plain data). */
export interface BridgeCall {
  readonly id: number;
  readonly job: number;
  readonly method: BridgeMethod;
  readonly args: readonly unknown[];
}

/** The main thread's answer to a forwarded call, from its caches, within the call's review. */
export interface BridgeAnswer {
  readonly id: number;
  readonly result: Result<JsonValue>;
}

/**
 * What a worker needs to reach the main thread's live context: its end of the bridge's channel (calls
 * are posted counted, counted-channel.ts), the shared word the main thread bumps after each answer,
 * and what the live port can load and answer.
 */
export interface BridgeInit extends CountedPort {
  readonly signal: SharedArrayBuffer;
  readonly canLoad: Readonly<Record<LoadKind, boolean>>;
  readonly methods: readonly BridgeMethod[];
}
