/**
 * One mutate UpdateRequest, run (Kyverno `pkg/background/mutate/mutate.go`): read the policy and
 * the trigger (the admission request's object for an UPDATE, else the object as it is now), let the
 * engine's mutate-existing evaluation find and patch the targets (context entries and targets read
 * from the API server: record and re-run, at most 8 rounds), read each patched target as it is now,
 * decide (reconcile.ts) and write. The answer is what the request's status becomes. A trigger not
 * found (of a kind the API server serves) is transient (retried): the request may run before the
 * API server has stored it.
 */
import {
  type CompiledPolicy,
  createEngine,
  type Engine,
  type ExistingResources,
  isObject,
  mutateExistingView,
  type Resource,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
  type RuleResult,
} from "../../engine/index.js";
import { ClusterReads, describeKubeError } from "../../kube/cluster-reads.js";
import { type ClusterTypedKinds, typesInRounds } from "../../kube/openapi-typed-kinds.js";
import { KubeError, type KubeClient } from "../../kube/kube-client.js";
import { cryptoRandom, nodeHasher, nodeSignatures, systemClock } from "../../platform/node-ports.js";
import { offlineHosts } from "../../platform/offline-context.js";
import { readNamespaceFacts } from "../namespace-facts.js";
import { engineRequest } from "../generate/evaluate-rules.js";
import type { KindPaths } from "../generate/kind-paths.js";
import { RecordedExisting } from "../generate/recorded-existing.js";
import { getOrMissing, policyKeyOf, type RunOutcome } from "../generate/run-update-request.js";
import type { UpdateRequest } from "../generate/update-request.js";
import { describeResource, reconcileMutateExisting, type TargetUpdate } from "./reconcile.js";

const MAX_ROUNDS = 8;

export interface MutateRunDeps {
  readonly client: KubeClient;
  readonly paths: KindPaths;
  readonly policies: () => readonly CompiledPolicy[];
  /** The cluster's kinds a MutatingPolicy's ApplyConfiguration is typed with (Kyverno's background controller reads them from /openapi/v3 too). */
  readonly types?: ClusterTypedKinds;
}

export async function runMutateRequest(ur: UpdateRequest, deps: MutateRunDeps): Promise<RunOutcome> {
  const policy = deps.policies().find((p) => policyKeyOf(p) === ur.policy);
  const trigger = policy === undefined ? undefined : await readTrigger(ur, deps);
  const results =
    policy !== undefined && trigger !== undefined
      ? await evaluateTargets({ deps, policy, ur, trigger })
      : ([] as RuleResult[]);
  // The UpdateRequest is written at admission, before the API server stores the trigger it admits:
  // a trigger not found yet is looked for again (with the controller's backoff), then Failed.
  const transient =
    policy !== undefined &&
    trigger === undefined &&
    ur.operation !== "DELETE" &&
    (await deps.paths.resolve(ur.trigger.apiVersion, ur.trigger.kind)) !== undefined;
  return decideAndWrite({
    deps,
    policy,
    policyKey: ur.policy,
    triggerProblem:
      policy !== undefined && trigger === undefined
        ? `failed to get the trigger ${ur.trigger.kind} ${ur.trigger.namespace === "" ? "" : `${ur.trigger.namespace}/`}${ur.trigger.name}: not found`
        : undefined,
    results,
    transient,
  });
}

/** The engine's results decided against each target as it is now (reconcile.ts) and written; the request's outcome. */
export async function decideAndWrite(input: {
  readonly deps: MutateRunDeps;
  readonly policy: CompiledPolicy | undefined;
  readonly policyKey: string;
  readonly triggerProblem: string | undefined;
  readonly results: readonly RuleResult[];
  /** Whether a failure is worth retrying whatever the writes say (a trigger not stored yet). */
  readonly transient: boolean;
}): Promise<RunOutcome> {
  const { deps, policy, results } = input;
  const current = new Map<string, Resource | undefined>();
  for (const r of results)
    if (r.status === "pass" && r.patchedTarget !== undefined)
      current.set(describeResource(r.patchedTarget), await readNow(r.patchedTarget, deps));
  const decided = reconcileMutateExisting({
    policy: policy === undefined ? "missing" : { namespace: policy.namespace !== "" ? policy.namespace : undefined },
    policyKey: input.policyKey,
    triggerProblem: input.triggerProblem,
    results,
    current: (t) => current.get(describeResource(t)),
  });
  const problems: string[] = [];
  let transient = input.transient;
  for (const action of decided.actions) {
    const problem = await write(action, deps);
    if (problem === undefined) continue;
    problems.push(problem.message);
    transient ||= problem.transient;
  }
  return {
    state: decided.state === "Failed" || problems.length > 0 ? "Failed" : "Completed",
    message: [decided.message, ...problems].filter((m) => m !== "").join("; "),
    generated: [],
    transient,
  };
}

/** The trigger: an UPDATE's object from the stored admission request, else the object as it is now (undefined: gone). */
async function readTrigger(ur: UpdateRequest, deps: MutateRunDeps): Promise<Resource | undefined> {
  const object = ur.admissionRequest?.["object"];
  if (ur.operation === "UPDATE" && isObject(object)) return object;
  const t = ur.trigger;
  const where = await deps.paths.resolve(t.apiVersion, t.kind);
  if (where === undefined || t.name === "") return undefined;
  const got = await getOrMissing(deps.client, where.object(t.namespace, t.name));
  return got === undefined ? undefined : { ...got, apiVersion: t.apiVersion, kind: t.kind };
}

async function readNow(target: Resource, deps: MutateRunDeps): Promise<Resource | undefined> {
  const where = await deps.paths.resolve(resourceApiVersion(target), resourceKind(target));
  if (where === undefined) return undefined;
  const got = await getOrMissing(deps.client, where.object(resourceNamespace(target), resourceName(target)));
  return got === undefined ? undefined : { ...got, apiVersion: resourceApiVersion(target), kind: resourceKind(target) };
}

/** The engine's results for the request's rule: one per target, with the patched target. */
async function evaluateTargets(input: {
  readonly deps: MutateRunDeps;
  readonly policy: CompiledPolicy;
  readonly ur: UpdateRequest;
  readonly trigger: Resource;
}): Promise<RuleResult[]> {
  const { deps, policy, ur, trigger } = input;
  const request = engineRequest({
    ur,
    trigger,
    ...(await readNamespaceFacts(deps.client, resourceNamespace(trigger))),
  });
  const rule = ur.rules[0]?.rule ?? "";
  const view = mutateExistingView(policy);
  return withClusterReads(deps, policy.namespace, (engine, existing) =>
    engine.mutate(view, request, existing).rules.filter((r) => r.rule === rule),
  );
}

/**
 * `run` against the cluster as it is: context entries, CEL `resource.*` and existing resources are
 * read from the API server, recorded and `run` again (at most 8 rounds) until nothing is pending.
 */
export async function withClusterReads(
  deps: MutateRunDeps,
  namespace: string,
  run: (engine: Engine, existing: ExistingResources) => RuleResult[],
): Promise<RuleResult[]> {
  const reads = new ClusterReads(deps.client);
  const existing = new RecordedExisting(deps.client, deps.paths, namespace);
  const types = deps.types !== undefined ? typesInRounds(deps.types) : undefined;
  const engine = createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: reads.sources(),
    hosts: offlineHosts,
    signatures: nodeSignatures,
    ...(types !== undefined ? { typedKinds: types.kinds } : {}),
  });
  let results = run(engine, existing.port());
  for (let round = 1; reads.pending + existing.pending + (types?.pending ?? 0) > 0 && round <= MAX_ROUNDS; round++) {
    await Promise.all([reads.settle(), existing.settle(), types?.settle()]);
    reads.finalRound(round === MAX_ROUNDS);
    results = run(engine, existing.port());
  }
  return results;
}

/** One target written; a refusal names the verb to grant, a conflict or an unanswered call is retried. */
async function write(
  action: TargetUpdate,
  deps: MutateRunDeps,
): Promise<{ readonly message: string; readonly transient: boolean } | undefined> {
  const r = action.resource;
  const what = `rule ${action.rule}: failed to update ${describeResource(r)}`;
  try {
    const where = await deps.paths.resolve(resourceApiVersion(r), resourceKind(r));
    if (where === undefined)
      return {
        message: `${what}: the cluster serves no ${resourceApiVersion(r)} ${resourceKind(r)}`,
        transient: false,
      };
    await deps.client.sendJson("PUT", where.object(resourceNamespace(r), resourceName(r)), r);
    return undefined;
  } catch (e) {
    if (e instanceof KubeError && e.status === 403)
      return {
        message: `${what}: ${describeKubeError(e)} (Bylaw's ServiceAccount may not update it: grant the verb in a ClusterRole labelled rbac.kyverno.io/aggregate-to-background-controller: "true")`,
        transient: false,
      };
    return { message: `${what}: ${describeKubeError(e)}`, transient: true };
  }
}
