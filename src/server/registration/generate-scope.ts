/**
 * Whether a generate rule's target fits its kind's scope, which only discovery knows (Kyverno
 * `Generation.Validate` and `ValidateCloneList` in `api/kyverno`, with its texts): a namespaced kind
 * needs a target namespace and a cluster-wide one must not have one; a namespaced Policy generates
 * and clones namespaced kinds only; a cloneList does not mix scopes, and names a namespace exactly
 * when its kinds are namespaced. A kind discovery does not know is left to the permission check.
 */
import { parseKindSelector, problem, type CompiledPolicy, type PolicyProblem } from "../../engine/index.js";
import type { KindResolver } from "./kind-problems.js";
import { generateTargets, type GenerateTarget } from "./generate-targets.js";

type Scope = "namespaced" | "cluster" | undefined;

export function generateScopeProblems(policy: CompiledPolicy, resolve: KindResolver): PolicyProblem[] {
  const namespacedPolicy = policy.namespace !== "";
  const out: PolicyProblem[] = [];
  for (const target of generateTargets(policy)) {
    const scopes = target.kinds.map((k) => scopeOf(k, resolve));
    if (target.fromCloneList) out.push(...cloneListProblems(target, scopes, namespacedPolicy));
    else if (scopes[0] !== undefined) out.push(...targetProblems(target, scopes[0], namespacedPolicy));
  }
  return out;
}

function scopeOf(kind: string, resolve: KindResolver): Scope {
  if (kind.includes("{{")) return undefined;
  const found = resolve(parseKindSelector(kind)) ?? [];
  if (found.length === 0) return undefined;
  return found.some((r) => r.namespaced) ? "namespaced" : "cluster";
}

function targetProblems(target: GenerateTarget, scope: Scope, namespacedPolicy: boolean): PolicyProblem[] {
  const at = `${target.path}.namespace`;
  const out: PolicyProblem[] = [];
  if (namespacedPolicy && scope === "cluster")
    out.push(
      problem(
        at,
        `Forbidden: target resource scope mismatched: the target must be a namespaced resource: ${target.kinds[0] ?? ""}`,
      ),
    );
  if (scope === "namespaced" && target.namespace === "")
    out.push(problem(at, "Forbidden: target namespace must be set for a namespaced resource"));
  if (scope === "cluster" && target.namespace !== "")
    out.push(problem(at, "Forbidden: target namespace must not be set for a cluster-wide resource"));
  return out;
}

function cloneListProblems(
  target: GenerateTarget,
  scopes: readonly Scope[],
  namespacedPolicy: boolean,
): PolicyProblem[] {
  const at = `${target.path}.cloneList`;
  const out: PolicyProblem[] = [];
  if (namespacedPolicy)
    target.kinds.forEach((k, i) => {
      if (scopes[i] === "cluster")
        out.push(problem(`${at}.kinds`, `Forbidden: the source in cloneList must be a namespaced resource: ${k}`));
    });
  const known = scopes.filter((s) => s !== undefined);
  if (new Set(known).size > 1)
    out.push(problem(`${at}.kinds`, "Forbidden: mixed scope of target resources is forbidden"));
  const cloneList = target.generate["cloneList"];
  const namespace =
    typeof cloneList === "object" &&
    cloneList !== null &&
    !Array.isArray(cloneList) &&
    typeof cloneList["namespace"] === "string"
      ? cloneList["namespace"]
      : "";
  const allCluster = known.length > 0 && known.every((s) => s === "cluster");
  if (!allCluster && known.length > 0 && namespace === "")
    out.push(problem(`${at}.namespace`, "Forbidden: namespace is required for namespaced target resources"));
  if (allCluster && !namespacedPolicy && namespace !== "")
    out.push(problem(`${at}.namespace`, "Forbidden: namespace is forbidden for cluster-wide target resources"));
  return out;
}
