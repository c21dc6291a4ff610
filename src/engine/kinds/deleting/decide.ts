/**
 * Whether a DeletingPolicy deletes one object (Kyverno's `pkg/cel/policies/dpol`): the object is
 * matched against `matchConstraints` as a CREATE of it (every resource rule's operations apply),
 * then the policies.kyverno.io PolicyExceptions naming the policy (one whose matchConditions hold
 * keeps the object), then `conditions` in order with `object`, `namespaceObject` and the lazy
 * `variables`: one false keeps the object; all true deletes it. A condition that errors (or is not a
 * bool) while none is false is an error, never a deletion: the message names the condition. There is
 * no request: `request` and `oldObject` are null.
 */
import { isObject } from "../../api/json.js";
import { parseApiVersion, resourceLabels, resourceNamespace, type Resource } from "../../api/resource.js";
import { policyActivation } from "../../cel/lazy-variables.js";
import { toCel } from "../../cel/values.js";
import { RUNTIME_COST_BUDGET, type CostBudget } from "../../cel/types.js";
import type { CompiledCelException } from "../../exceptions/cel/index.js";
import type { EnginePorts } from "../../ports.js";
import type { CompiledDeletingBody } from "./body.js";

/** One object the policy may delete. */
interface DeletingCandidate {
  readonly resource: Resource;
  /** Labels of its namespace (namespaceSelector; namespaceObject when the caller has no object). */
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /**
   * Its Namespace as the caller resolves it (the cluster's copy, annotations included; a values
   * file's entry): CEL's `namespaceObject`. For a Namespace itself, its own resolved copy. Null: the
   * caller resolves none (Kyverno's CLI, a namespace its values do not list). Absent: one built from
   * the name and labels.
   */
  readonly namespaceObject?: Resource | null;
  /** Its resource's plural when the caller knows it (listed from the API server); else a built-in kind's. */
  readonly plural?: string;
  /**
   * A JSON payload (`apply --json`), not a Kubernetes object: without an apiVersion and a kind it is
   * not matched against matchConstraints, only the conditions decide (Kyverno's dpol engine).
   */
  readonly payload?: boolean;
}

type DeletingVerdict =
  | { readonly kind: "not-selected" }
  | { readonly kind: "keep"; readonly exceptions?: readonly string[] }
  | { readonly kind: "delete" }
  | { readonly kind: "error"; readonly message: string };

export function deletingVerdict(
  body: CompiledDeletingBody,
  candidate: DeletingCandidate,
  run: {
    readonly policyNamespace: string;
    /**
     * Whether a namespaced policy selects only objects of its own namespace (default true, as the
     * cleanup controller lists only there). False as Kyverno's CLI: its dpol engine matches a
     * NamespacedDeletingPolicy's constraints without the policy's namespace.
     */
    readonly ownNamespaceOnly?: boolean;
    readonly ports: EnginePorts;
    readonly exceptions?: readonly CompiledCelException[];
    /** The compile error of an exception naming the policy that Kyverno refuses: a selected object gets it. */
    readonly refused?: string;
  },
): DeletingVerdict {
  const resource = candidate.resource;
  const kind = typeof resource["kind"] === "string" ? resource["kind"] : "";
  const { group, version } = parseApiVersion(typeof resource["apiVersion"] === "string" ? resource["apiVersion"] : "");
  const untyped = candidate.payload === true && (kind === "" || version === "");
  const verdict = untyped
    ? { kind: "match" as const }
    : body.constraints.decide({
        resource,
        operation: "CREATE",
        gvk: { group, version, kind, ...(candidate.plural !== undefined ? { resource: candidate.plural } : {}) },
        subresource: "",
        namespaceLabels: candidate.namespaceLabels,
        policyNamespace: run.ownNamespaceOnly === false ? "" : run.policyNamespace,
      });
  if (verdict.kind === "no-match") return { kind: "not-selected" };
  if (verdict.kind === "error") return { kind: "error", message: verdict.message };
  if (run.refused !== undefined) return { kind: "error", message: run.refused };
  const services = { ports: run.ports, policyNamespace: run.policyNamespace };
  const budget: CostBudget = { remaining: RUNTIME_COST_BUDGET };
  const input = {
    object: toCel(resource),
    oldObject: null,
    request: null,
    namespaceObject: namespaceObject(candidate),
  };
  const activation = policyActivation(body.variables, input, { extra: {}, budget, services });
  const excepted = exceptedBy(run.exceptions ?? [], activation, { budget, services });
  if (excepted.kind !== "none")
    return excepted.kind === "error" ? excepted : { kind: "keep", exceptions: excepted.names };
  const errors: string[] = [];
  for (const [i, c] of body.conditions.entries()) {
    const r = c.program.evaluate(activation, budget, services);
    const label = `conditions[${i}]${c.name === "" ? "" : ` (${c.name})`}`;
    if (!r.ok) errors.push(`${label}: ${r.error.message}`);
    else if (r.value === false) return { kind: "keep" };
    else if (r.value !== true) errors.push(`${label}: did not evaluate to a bool`);
  }
  if (errors.length > 0) return { kind: "error", message: `cannot evaluate ${errors.join("; ")}` };
  return { kind: "delete" };
}

/** The names (`namespace/name`) of the exceptions whose matchConditions all hold, or an error. */
function exceptedBy(
  exceptions: readonly CompiledCelException[],
  activation: Record<string, unknown>,
  run: { budget: CostBudget; services: { ports: EnginePorts; policyNamespace: string } },
): { kind: "none" } | { kind: "excepted"; names: string[] } | { kind: "error"; message: string } {
  const names: string[] = [];
  for (const e of exceptions) {
    let all = true;
    for (const c of e.matchConditions) {
      const r = c.program.evaluate(activation, run.budget, { ...run.services, authorNamespace: e.namespace });
      if (!r.ok) return { kind: "error", message: `PolicyException ${e.key}: ${r.error.message}` };
      if (r.value !== true) all = false;
    }
    if (all) names.push(e.key);
  }
  return names.length > 0 ? { kind: "excepted", names } : { kind: "none" };
}

/**
 * The object's Namespace as CEL sees it (Kyverno's dpol engine): for a namespaced object, the one the
 * caller resolved (null when it resolved none), else one of its name and labels; for a Namespace, its
 * resolved copy, else one of its own name and labels; null for any other cluster-scoped object.
 */
function namespaceObject(candidate: DeletingCandidate): unknown {
  const { resource } = candidate;
  const isNamespace = resource["kind"] === "Namespace" && resource["apiVersion"] === "v1";
  if (isNamespace) {
    if (isObject(candidate.namespaceObject)) return toCel(candidate.namespaceObject);
    const name = isObject(resource["metadata"]) ? resource["metadata"]["name"] : undefined;
    if (typeof name !== "string" || name === "") return null;
    return toCel({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: resourceLabels(resource) } });
  }
  const name = resourceNamespace(resource);
  if (name === "") return null;
  if (candidate.namespaceObject !== undefined)
    return candidate.namespaceObject === null ? null : toCel(candidate.namespaceObject);
  return toCel({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels: { ...candidate.namespaceLabels } } });
}
