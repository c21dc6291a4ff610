/**
 * A `cel-mutate` UpdateRequest without a trigger (Kyverno 1.19's policy controller writes one when a
 * MutatingPolicy with `evaluation.mutateExisting.enabled` appears or changes, and its background
 * processor runs it): the objects of the resources its target constraints name are listed (a
 * namespaced policy's in its namespace only), each evaluated as an UPDATE of itself by the engine's
 * scan view (target constraints, targetMatchConditions, mutations; `resource.Get` and context read
 * from the API server: record and re-run, at most 8 rounds), then decided and written as a
 * triggered request's targets are (run-mutate-request.ts).
 */
import {
  type CompiledPolicy,
  type EngineRequest,
  type Resource,
  mutateExistingScanView,
  resourceNamespace,
  type RuleResult,
} from "../../engine/index.js";
import { describeKubeError } from "../../kube/cluster-reads.js";
import { ownNamespaceFacts, readNamespaceFacts } from "../namespace-facts.js";
import { policyKeyOf, type RunOutcome } from "../generate/run-update-request.js";
import type { UpdateRequest } from "../generate/update-request.js";
import { decideAndWrite, type MutateRunDeps, withClusterReads } from "./run-mutate-request.js";
import { resourceRuleObjects } from "../generate/generating-existing.js";

/** A listed target and the kind (with its plural) it is matched as. */
interface Listed {
  readonly object: Resource;
  readonly matchKind: NonNullable<EngineRequest["matchKind"]>;
}

export async function runMutateScan(ur: UpdateRequest, deps: MutateRunDeps): Promise<RunOutcome> {
  const policy = deps.policies().find((p) => policyKeyOf(p) === ur.policy);
  const view = policy === undefined ? undefined : mutateExistingScanView(policy);
  if (policy === undefined || view === undefined)
    return decideAndWrite({
      deps,
      policy: undefined,
      policyKey: ur.policy,
      triggerProblem: undefined,
      results: [],
      transient: false,
    });
  const listed = await listTargets(view, deps);
  const results: RuleResult[] = [];
  for (const target of listed.targets) results.push(...(await evaluate(view, target, deps)));
  const outcome = await decideAndWrite({
    deps,
    policy,
    policyKey: ur.policy,
    triggerProblem: undefined,
    results,
    transient: false,
  });
  if (listed.failures.length === 0) return outcome;
  return {
    ...outcome,
    state: "Failed",
    message: [...listed.failures, outcome.message].filter((m) => m !== "").join("; "),
    transient: true,
  };
}

/** The objects of every resource the scan view's bodies name, each resource once; a listing that fails is named. */
async function listTargets(
  view: CompiledPolicy,
  deps: MutateRunDeps,
): Promise<{ targets: Listed[]; failures: string[] }> {
  const targets: Listed[] = [];
  if (view.language !== "mutating") return { targets, failures: [] };
  const rules = view.mutating.flatMap((b) => b.constraints.resourceRules?.include ?? []);
  try {
    for await (const listed of resourceRuleObjects(rules, view.namespace, deps)) targets.push(listed);
  } catch (e) {
    return {
      targets,
      failures: [`failed to list the targets: ${e instanceof Error ? e.message : describeKubeError(e)}`],
    };
  }
  return { targets, failures: [] };
}

/** One target through the scan view, each pass carrying the target as patched. */
async function evaluate(view: CompiledPolicy, target: Listed, deps: MutateRunDeps): Promise<RuleResult[]> {
  const facts =
    ownNamespaceFacts(target.object) ?? (await readNamespaceFacts(deps.client, resourceNamespace(target.object)));
  const request: EngineRequest = {
    resource: target.object,
    operation: "UPDATE",
    matchKind: target.matchKind,
    ...facts,
  };
  return withClusterReads(deps, view.namespace, (engine, existing) => {
    const response = engine.mutate(view, request, existing);
    const patched = response.patchedResource ?? target.object;
    return response.rules.map((r) => (r.status === "pass" ? { ...r, patchedTarget: patched } : r));
  });
}
