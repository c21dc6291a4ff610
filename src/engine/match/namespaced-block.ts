/**
 * What a namespaced policy (kyverno.io Policy or CleanupPolicy) may not filter on in a match or
 * exclude block, as Kyverno's `ResourceDescription.Validate` refuses it when the policy is
 * namespaced: a `namespaces` list (the policy applies in its own namespace only), and a
 * cluster-wide kind. Kyverno knows which kinds are cluster-wide from discovery, so its CLI (no
 * cluster) checks only the first; so does the engine. A component with a cluster passes
 * `isClusterScoped` to `clusterKindProblems`.
 */
import type { MatchResources, ResourceDescription } from "../api/policy.js";
import { problem, type PolicyProblem } from "../api/problem.js";

/** The block's resource descriptions with their paths: the legacy `resources`, each `any[]` and `all[]` filter's. */
function descriptions(block: MatchResources | undefined, path: string): [ResourceDescription, string][] {
  if (block == null) return [];
  const out: [ResourceDescription, string][] = [];
  if (block.resources != null) out.push([block.resources, `${path}.resources`]);
  for (const list of ["any", "all"] as const)
    (block[list] ?? []).forEach((f, i) => {
      if (f?.resources != null) out.push([f.resources, `${path}.${list}[${i}].resources`]);
    });
  return out;
}

/** A `namespaces` filter in a namespaced policy's block (Kyverno: Forbidden). */
export function namespaceFilterProblems(block: MatchResources | undefined, path: string): PolicyProblem[] {
  return descriptions(block, path)
    .filter(([rd]) => Array.isArray(rd.namespaces) && rd.namespaces.length > 0)
    .map(([, p]) => problem(`${p}.namespaces`, "Forbidden: Filtering namespaces not allowed in namespaced policies"));
}

/** A cluster-wide kind in a namespaced policy's block; `kinds` entries may be `Kind`, `v1/Kind` or `group/v1/Kind`. */
export function clusterKindProblems(
  block: MatchResources | undefined,
  path: string,
  isClusterScoped: (kind: string) => boolean,
): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  for (const [rd, p] of descriptions(block, path))
    (rd.kinds ?? []).forEach((kind, i) => {
      if (typeof kind === "string" && isClusterScoped(kind))
        out.push(
          problem(`${p}.kinds[${i}]`, `Forbidden: Cluster wide resource '${kind}' not allowed in namespaced policy`),
        );
    });
  return out;
}
