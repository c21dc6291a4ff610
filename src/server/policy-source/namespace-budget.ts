/**
 * What one namespace's policies may take (issue 32 §10): a tenant who may create Policies (and the
 * namespaced policies.kyverno.io kinds) in her namespace cannot make Bylaw compile and hold
 * hundreds of them, so the memory and time they take stay bounded and the cluster's policies keep
 * loading. Within a namespace the policies created first are served; each one past the count or the
 * bytes is not compiled, and its status says why (Ready False). Cluster-scoped policies have no
 * budget here: they are the cluster admin's.
 */
import { type CompiledPolicy, type PolicyProblem, problem } from "../../engine/index.js";
import type { KubeObject } from "../../kube/types.js";

export interface NamespaceBudget {
  /** Policies served per namespace, of every namespaced kind together (default 100). */
  readonly maxPolicies: number;
  /** Bytes of policy spec (as JSON) served per namespace, all kinds together (default 1 MiB). */
  readonly maxBytes: number;
}

export const DEFAULT_NAMESPACE_BUDGET: NamespaceBudget = { maxPolicies: 100, maxBytes: 1024 * 1024 };

/**
 * The namespaced policy objects past their namespace's budget, each with the reason it is not
 * served. A namespace's objects are taken oldest first (creationTimestamp, then kind and name), so a
 * new policy never pushes out one already served.
 */
export function overNamespaceBudget(
  objects: readonly { readonly obj: KubeObject; readonly kind: string }[],
  budget: NamespaceBudget,
): Map<KubeObject, string> {
  const byNamespace = new Map<string, { obj: KubeObject; kind: string }[]>();
  for (const o of objects) {
    const ns = o.obj.metadata?.namespace ?? "";
    let list = byNamespace.get(ns);
    if (list === undefined) byNamespace.set(ns, (list = []));
    list.push(o);
  }
  const over = new Map<KubeObject, string>();
  for (const [ns, list] of byNamespace) {
    if (list.length <= budget.maxPolicies && !anyLarge(list, budget)) continue;
    list.sort(oldestFirst);
    let count = 0;
    let bytes = 0;
    for (const { obj } of list) {
      const size = specBytes(obj);
      if (count + 1 > budget.maxPolicies)
        over.set(
          obj,
          `namespace ${ns} holds more than ${budget.maxPolicies} policies, its budget (--max-policies-per-namespace); the ones created first are served, this one is not`,
        );
      else if (bytes + size > budget.maxBytes)
        over.set(
          obj,
          `namespace ${ns}'s policies take more than ${budget.maxBytes} bytes, its budget (--max-policy-bytes-per-namespace); the ones created first are served, this one (${size} bytes) is not`,
        );
      else {
        count++;
        bytes += size;
      }
    }
  }
  return over;
}

/** Whether the namespace's specs may pass the byte budget (measured only then). */
function anyLarge(list: readonly { obj: KubeObject }[], budget: NamespaceBudget): boolean {
  let bytes = 0;
  for (const { obj } of list) {
    bytes += specBytes(obj);
    if (bytes > budget.maxBytes) return true;
  }
  return false;
}

const sizes = new WeakMap<KubeObject, number>();

/** The spec's size as JSON, in UTF-16 code units (bytes for ASCII); kept per object, which the watches replace on change. */
function specBytes(obj: KubeObject): number {
  let size = sizes.get(obj);
  if (size === undefined) {
    size = JSON.stringify(obj["spec"] ?? null).length;
    sizes.set(obj, size);
  }
  return size;
}

function oldestFirst(a: { obj: KubeObject; kind: string }, b: { obj: KubeObject; kind: string }): number {
  const ta = createdAt(a.obj);
  const tb = createdAt(b.obj);
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = `${a.kind}/${a.obj.metadata?.name ?? ""}`;
  const kb = `${b.kind}/${b.obj.metadata?.name ?? ""}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function createdAt(obj: KubeObject): string {
  const t = (obj.metadata as { creationTimestamp?: unknown } | undefined)?.creationTimestamp;
  return typeof t === "string" ? t : "";
}

/**
 * At the policy webhook: a new namespaced policy its namespace has no room for (the policies
 * `served` there now, every namespaced kind together) is refused at `kubectl apply`, naming the
 * budget, rather than admitted and left not Ready. A change to a policy already served is let
 * through here (the load decides, oldest first, as above).
 */
export function admissionBudgetProblems(
  policy: CompiledPolicy,
  served: readonly CompiledPolicy[],
  budget: NamespaceBudget,
): PolicyProblem[] {
  const ns = policy.namespace;
  if (ns === "") return [];
  const same = served.filter((p) => p.namespace === ns);
  if (same.some((p) => p.name === policy.name && p.kind === policy.kind)) return [];
  if (same.length >= budget.maxPolicies)
    return [
      problem(
        "metadata.namespace",
        `namespace ${ns} already holds ${same.length} policies, its budget (--max-policies-per-namespace ${budget.maxPolicies}); delete one before adding another`,
      ),
    ];
  const size = (p: CompiledPolicy): number => JSON.stringify(p.document["spec"] ?? null).length;
  const used = same.reduce((sum, p) => sum + size(p), 0);
  if (used + size(policy) > budget.maxBytes)
    return [
      problem(
        "spec",
        `namespace ${ns}'s policies take ${used} bytes and this one ${size(policy)}, past its budget of ${budget.maxBytes} bytes (--max-policy-bytes-per-namespace)`,
      ),
    ];
  return [];
}
