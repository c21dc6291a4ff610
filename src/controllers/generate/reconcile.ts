/**
 * One UpdateRequest's generate work, decided (Kyverno `pkg/background/generate/generate.go`): from
 * the engine's outcome for each rule and what exists now, the writes to make and the state the
 * UpdateRequest ends in. Pure: the loop (generate-controller.ts) reads and writes the cluster.
 * - a rule that generated objects: each absent target is created; an existing one is updated only
 *   when the rule synchronizes and it drifted (objects Kyverno created, with its labels, are adopted
 *   the same way); without synchronize an existing object is left as it is;
 * - a synchronized rule whose trigger is gone or no longer matches (`deleteDownstream`, or the
 *   trigger deleted): its downstream objects are deleted; so are a synchronized kyverno.io rule's
 *   when it is skipped, not a GeneratingPolicy's when an exception exempts its trigger (`excepted`);
 * - a synchronized rule's downstream objects it no longer generates are deleted;
 * - a rule error fails the request with the rule's message; so does a namespaced Policy whose
 *   target is outside its namespace or cluster-scoped (tenant rule: checked after substitution).
 */
import {
  type GeneratedResource,
  isObject,
  type JsonObject,
  type JsonValue,
  type Resource,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../engine/index.js";
import type { ResourceSpec } from "./update-request.js";

export interface RuleOutcome {
  readonly rule: string;
  /** The `generate.kyverno.io/rule-name` label its downstream objects carry (engine `downstreamRuleLabel`). */
  readonly downstreamLabel: string;
  readonly synchronize: boolean;
  readonly deleteDownstream: boolean;
  /**
   * The engine's status for the rule; `unmatched` when the rule no longer matches the trigger;
   * `excepted` when a policies.kyverno.io PolicyException exempts a GeneratingPolicy's trigger
   * (Kyverno's gpol controller only records it: nothing is written or deleted).
   */
  readonly status: "pass" | "skip" | "excepted" | "error" | "unmatched";
  readonly message: string;
  readonly generated: readonly GeneratedResource[];
}

export interface ReconcileInput {
  /** `namespace` for a namespaced Policy, undefined for a ClusterPolicy; `missing` when the policy is gone. */
  readonly policy: { readonly key: string; readonly namespace: string | undefined } | "missing";
  readonly policyKey: string;
  /** A CEL policy's kind, as the tenant refusal names it (not given: a kyverno.io `Policy`). */
  readonly policyKind?: string;
  readonly triggerGone: boolean;
  readonly rules: readonly RuleOutcome[];
  /** The objects at each generated target, and each rule's labelled downstream objects. */
  readonly current: readonly Resource[];
  /** Whether a kind is namespaced (from discovery); undefined when the cluster does not serve it. */
  readonly namespaced: (apiVersion: string, kind: string) => boolean | undefined;
}

export type Action =
  | { readonly type: "create"; readonly rule: string; readonly resource: Resource }
  | { readonly type: "update"; readonly rule: string; readonly resource: Resource }
  | { readonly type: "delete"; readonly rule: string; readonly target: ResourceSpec };

export interface Reconciled {
  readonly actions: readonly Action[];
  readonly state: "Completed" | "Failed";
  readonly message: string;
  readonly generated: readonly ResourceSpec[];
}

const RULE_LABEL = "generate.kyverno.io/rule-name";

function specOf(r: Resource): ResourceSpec {
  const meta = isObject(r["metadata"]) ? r["metadata"] : {};
  return {
    apiVersion: resourceApiVersion(r),
    kind: resourceKind(r),
    namespace: resourceNamespace(r),
    name: resourceName(r),
    uid: typeof meta["uid"] === "string" ? meta["uid"] : "",
  };
}

const sameTarget = (a: Resource, b: Resource): boolean =>
  resourceKind(a) === resourceKind(b) &&
  resourceApiVersion(a) === resourceApiVersion(b) &&
  resourceNamespace(a) === resourceNamespace(b) &&
  resourceName(a) === resourceName(b);

function labelOf(r: Resource, key: string): string | undefined {
  const meta = isObject(r["metadata"]) ? r["metadata"] : {};
  const labels = isObject(meta["labels"]) ? meta["labels"] : {};
  const v = labels[key];
  return typeof v === "string" ? v : undefined;
}

export function reconcile(input: ReconcileInput): Reconciled {
  if (input.policy === "missing")
    return { actions: [], state: "Failed", message: `policy ${input.policyKey} not found`, generated: [] };
  const policy = input.policy;
  const actions: Action[] = [];
  const failures: string[] = [];
  const generated: ResourceSpec[] = [];
  for (const outcome of input.rules) {
    // No rule-name label reads as "": a GeneratingPolicy's downstream has none (downstreamRuleLabel).
    const downstream = input.current.filter((r) => (labelOf(r, RULE_LABEL) ?? "") === outcome.downstreamLabel);
    const removeAll = outcome.deleteDownstream || input.triggerGone || outcome.status === "unmatched";
    if (removeAll || (outcome.status === "skip" && outcome.synchronize)) {
      if (outcome.synchronize || outcome.deleteDownstream)
        for (const r of downstream) actions.push({ type: "delete", rule: outcome.rule, target: specOf(r) });
      continue;
    }
    if (outcome.status === "error") {
      // The engine's message may name the rule already (a clone source it could not read).
      const label = ruleLabel(outcome.rule);
      failures.push(outcome.message.startsWith(label) ? outcome.message : `${label}${outcome.message}`);
      continue;
    }
    if (outcome.status === "skip" || outcome.status === "excepted") continue;
    const refused = outcome.generated.map((g) => tenantProblem(g.toApply, policy.namespace, input)).find(Boolean);
    if (refused !== undefined) {
      failures.push(`${ruleLabel(outcome.rule)}${refused}`);
      continue;
    }
    for (const g of outcome.generated) {
      generated.push(specOf(g.toApply));
      const present = input.current.find((r) => sameTarget(r, g.toApply));
      if (present === undefined) actions.push({ type: "create", rule: outcome.rule, resource: g.toApply });
      else if (g.synchronize && drifted(g.toApply, present))
        actions.push({ type: "update", rule: outcome.rule, resource: withVersionOf(g.toApply, present) });
    }
    if (outcome.synchronize)
      for (const r of downstream)
        if (!outcome.generated.some((g) => sameTarget(g.toApply, r)))
          actions.push({ type: "delete", rule: outcome.rule, target: specOf(r) });
  }
  return failures.length > 0
    ? { actions, state: "Failed", message: failures.join("; "), generated }
    : { actions, state: "Completed", message: "", generated };
}

/** How a message names its rule: `rule NAME: `; nothing for a GeneratingPolicy's one unnamed body. */
export function ruleLabel(rule: string): string {
  return rule === "" ? "" : `rule ${rule}: `;
}

/** Why a namespaced Policy may not write `r` (tenant-isolation rule 1), or undefined. */
function tenantProblem(r: Resource, policyNamespace: string | undefined, input: ReconcileInput): string | undefined {
  if (policyNamespace === undefined) return undefined;
  const namespaced = input.namespaced(resourceApiVersion(r), resourceKind(r));
  const what = `${resourceKind(r)} ${resourceNamespace(r) === "" ? "" : `${resourceNamespace(r)}/`}${resourceName(r)}`;
  const who = `a namespaced ${input.policyKind ?? "Policy"} (namespace ${policyNamespace})`;
  if (namespaced === false || resourceNamespace(r) === "")
    return `${who} cannot generate the cluster-scoped ${what}${input.policyKind === undefined ? "; use a ClusterPolicy" : ""}`;
  if (resourceNamespace(r) !== policyNamespace) return `${who} can only generate into its own namespace, not ${what}`;
  return undefined;
}

/** Whether `present` differs from what the rule generates: a top-level field it writes (not metadata or status), or one of its labels or annotations; fields the API server defaults are not drift. */
export function drifted(desired: Resource, present: Resource): boolean {
  for (const [k, v] of Object.entries(desired)) {
    if (k === "metadata" || k === "status") continue;
    if (!jsonEqual(v, present[k])) return true;
  }
  const dm = isObject(desired["metadata"]) ? desired["metadata"] : {};
  const pm = isObject(present["metadata"]) ? present["metadata"] : {};
  for (const part of ["labels", "annotations"]) {
    const want = isObject(dm[part]) ? dm[part] : {};
    const have = isObject(pm[part]) ? pm[part] : {};
    for (const [k, v] of Object.entries(want)) if (have[k] !== v) return true;
  }
  return false;
}

function withVersionOf(desired: Resource, present: Resource): Resource {
  const pm = isObject(present["metadata"]) ? present["metadata"] : {};
  const dm = isObject(desired["metadata"]) ? desired["metadata"] : {};
  const metadata: JsonObject = { ...dm };
  if (typeof pm["resourceVersion"] === "string") metadata["resourceVersion"] = pm["resourceVersion"];
  return { ...desired, metadata };
}

function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => jsonEqual(a[k], b[k]));
  }
  return false;
}
