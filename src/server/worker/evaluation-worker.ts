/**
 * An evaluation worker (worker_threads): compiles each policy snapshot it is sent (only the policies
 * it does not hold from a snapshot it keeps), with the
 * same engine ports as `bylaw serve`, and runs review jobs under their deadline (admission/review-runner.ts
 * `runPolicies`), reporting each finished policy as it goes. With live context (`--cluster`) the
 * engine's ContextSources is a bridge to the main thread's caches (context-bridge.ts), each call
 * naming the job it belongs to. The main thread terminates a worker
 * that runs past a job's deadline, so a stuck evaluation never holds the server.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { performance } from "node:perf_hooks";
import {
  type AnyCompiledException,
  type CompiledPolicy,
  createEngine,
  type Engine,
  policyMatchNames,
  builtinTypedKinds,
  type TypedKinds,
  typedKindsOf,
} from "../../engine/index.js";
import { clusterTypedKinds } from "../../kube/openapi-typed-kinds.js";
import { servePorts } from "../serve-ports.js";
import { runPolicies } from "../admission/review-runner.js";
import {
  type BridgeInit,
  KeptSnapshots,
  type FromWorker,
  type RunMessage,
  type SnapshotMessage,
  type ToWorker,
} from "./wire.js";
import { ContextBridge } from "./context-bridge.js";
import { type CountedPort, countedPoster } from "./counted-channel.js";
import { rebuildPolicy, type PolicyRecipe } from "./policy-recipe.js";
import { documentName } from "../../platform/policy-documents/index.js";

/** A snapshot compiled: each policy, or why it did not compile here (only the jobs that run it fail). */
type Compiled =
  | { readonly policies: readonly (CompiledPolicy | string)[]; readonly exceptions: readonly AnyCompiledException[] }
  | { readonly error: string };

const now = (): number => performance.now() / 1000;

/**
 * Serves one worker's messages: its engine and compiled snapshots live here, not in the module, so
 * nothing outlives the worker or is shared with another engine.
 */
function serve(port: MessagePort, post: (message: FromWorker) => void, bridge: ContextBridge | undefined): void {
  // The same ports as the server's own engine, so a review gives the same results on either.
  // The kinds a MutatingPolicy's ApplyConfiguration is typed with: the built-in ones until the
  // main thread sends the cluster's (`--cluster`), which it does before any job.
  let types: TypedKinds = builtinTypedKinds;
  const typedKinds: TypedKinds = {
    typeOf: (apiVersion, kind) => types.typeOf(apiVersion, kind),
    resolve: (node) => types.resolve(node),
    missing: (apiVersion, kind) => types.missing?.(apiVersion, kind),
  };
  const engine = createEngine(servePorts({ live: bridge?.sources(), typedKinds }));
  const snapshots = new Map<number, Compiled>();
  /** The policies compiled, by recipe id, while a kept snapshot names them (wire.ts KeptSnapshots). */
  const recipes = new Map<number, CompiledPolicy | string>();
  const kept = new KeptSnapshots();
  port.on("message", (m: ToWorker) => {
    try {
      if (m.type === "types") {
        types = clusterTypedKinds(m.state, (data) => typedKindsOf(() => data));
        return;
      }
      if (m.type === "snapshot") {
        snapshots.set(m.id, compileSnapshot(engine, m, recipes));
        const ids = m.policies.map((p) => p.id);
        const gone = kept.add(m.id, ids);
        for (const id of gone.snapshots) snapshots.delete(id);
        for (const id of gone.recipes) recipes.delete(id);
        return;
      }
      run({ engine, snapshots, bridge }, m, post);
    } catch (e) {
      if (m.type === "run") post({ type: "end", job: m.job, error: e instanceof Error ? e.message : String(e) });
    }
  });
}

/**
 * A snapshot's policies: those the worker holds from a kept snapshot as they are, the others
 * compiled from their recipes (and kept in `recipes` under their ids).
 */
function compileSnapshot(engine: Engine, m: SnapshotMessage, recipes: Map<number, CompiledPolicy | string>): Compiled {
  const policies = m.policies.map((p): CompiledPolicy | string => {
    if (p.recipe === undefined)
      return recipes.get(p.id) ?? `policy recipe ${p.id} is not loaded in the evaluation worker`;
    const compiled = compileRecipe(engine, p.recipe, p.ruleNames ?? []);
    recipes.set(p.id, compiled);
    return compiled;
  });
  const exceptions: AnyCompiledException[] = [];
  for (const doc of m.exceptions) {
    const r = engine.compileException(doc);
    if (!r.ok)
      return {
        error: `a PolicyException did not compile in the evaluation worker: ${r.problems.map((p) => p.message).join("; ")}`,
      };
    exceptions.push(r.exception);
  }
  return { policies, exceptions };
}

/** One policy rebuilt from its recipe, or why it cannot run here (only the jobs that run it fail). */
function compileRecipe(engine: Engine, recipe: PolicyRecipe, ruleNames: readonly string[]): CompiledPolicy | string {
  const r = rebuildPolicy(engine, recipe);
  const name = documentName(recipe.document);
  if (!r.ok)
    return `policy ${name} did not compile in the evaluation worker: ${r.problems.map((p) => p.message).join("; ")}`;
  // What the policy matches, as the main thread compiled it (a kyverno.io policy's rule names; one per CEL matchConstraints).
  if (policyMatchNames(r.policy).join("\n") !== ruleNames.join("\n"))
    return `policy ${r.policy.name} compiled to other rules in the evaluation worker`;
  return r.policy;
}

interface WorkerState {
  readonly engine: Engine;
  readonly snapshots: ReadonlyMap<number, Compiled>;
  readonly bridge: ContextBridge | undefined;
}

function run({ engine, snapshots, bridge }: WorkerState, m: RunMessage, post: (message: FromWorker) => void): void {
  const compiled = snapshots.get(m.snapshot);
  if (compiled === undefined || "error" in compiled) {
    post({
      type: "end",
      job: m.job,
      error: compiled?.error ?? `policy snapshot ${m.snapshot} is not loaded in the evaluation worker`,
    });
    return;
  }
  const policies = m.policies.map((i, k) => {
    const policy = compiled.policies[i];
    const names = m.rules[k];
    if (policy === undefined || typeof policy === "string" || names === null || names === undefined) return policy;
    const keep = new Set(names);
    return policy.language === "kyverno" ? { ...policy, rules: policy.rules.filter((r) => keep.has(r.name)) } : policy;
  });
  if (policies.some((p) => p === undefined)) {
    post({ type: "end", job: m.job, error: "a policy of the job is not in its snapshot" });
    return;
  }
  const failed = policies.find((p): p is string => typeof p === "string");
  if (failed !== undefined) {
    post({ type: "end", job: m.job, error: failed });
    return;
  }
  const request = m.exceptions ? { ...m.request, exceptions: compiled.exceptions } : m.request;
  const deadlineAt = now() + m.remainingSeconds;
  bridge?.begin(m.job, deadlineAt);
  const job = {
    kind: m.kind,
    policies: policies as CompiledPolicy[],
    request,
    object: m.request.resource,
    deadlineAt,
    ...(m.unknownNamespace !== undefined ? { unknownNamespace: m.unknownNamespace } : {}),
  };
  const outcome = runPolicies(engine, now, job, (done, index) =>
    post({ type: "done", job: m.job, index, rules: done.response.rules, seconds: done.seconds }),
  );
  post(
    outcome.resource !== undefined
      ? { type: "end", job: m.job, resource: outcome.resource }
      : { type: "end", job: m.job },
  );
}

/**
 * An evaluation thread yields the CPU to the main thread (light reviews, liveness, the bridge's
 * answers): nice +10 on Linux, where a thread's id (from /proc/thread-self) names it to
 * setpriority. Elsewhere, or if refused, it keeps the default priority.
 */
function yieldToMainThread(): void {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, 10);
  } catch {
    // not Linux, or not allowed: the default priority
  }
}

if (parentPort !== null) {
  yieldToMainThread();
  const { bridge, replies } = workerData as { bridge?: BridgeInit; replies: CountedPort };
  // Reports go on the counted channel the pool gave (counted-channel.ts), which a busy main thread reads too.
  serve(parentPort, countedPoster(replies), bridge !== undefined ? new ContextBridge(bridge, now) : undefined);
}
