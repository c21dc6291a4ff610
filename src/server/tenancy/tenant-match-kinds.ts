/**
 * A namespaced kyverno.io Policy or CleanupPolicy whose match or exclude names a cluster-wide kind
 * is refused when it is admitted, as Kyverno's policy webhook refuses it (it learns the
 * cluster-wide kinds from discovery; the built-in ones are known here without a call). Its
 * `namespaces` filter is refused by the engine in every mode (namespaced-block.ts). A custom
 * cluster-scoped kind is not known here; the controllers still list only the policy's namespace.
 */
import {
  clusterKindProblems,
  isObject,
  type JsonValue,
  type MatchResources,
  type PolicyProblem,
} from "../../engine/index.js";
import { builtInKind } from "../../kube/built-in-kinds.js";

const clusterScoped = (kind: string): boolean => builtInKind(kind.split("/").pop() ?? kind)?.namespaced === false;

/** The match/exclude blocks of a policy document with their paths: each rule's, or the spec's own (a cleanup policy). */
function blocks(document: JsonValue): [MatchResources, string][] {
  if (!isObject(document) || !isObject(document["spec"])) return [];
  const spec = document["spec"];
  const out: [MatchResources, string][] = [];
  const take = (owner: { readonly [k: string]: JsonValue }, path: string): void => {
    for (const b of ["match", "exclude"] as const) {
      const block = owner[b];
      if (isObject(block)) out.push([block, `${path}${b}`]);
    }
  };
  take(spec, "spec.");
  if (Array.isArray(spec["rules"]))
    spec["rules"].forEach((rule, i) => {
      if (isObject(rule)) take(rule, `spec.rules[${i}].`);
    });
  return out;
}

/** Cluster-wide kinds in a namespaced policy's match and exclude; none for a cluster-wide policy (`namespace` ""). */
export function matchKindProblems(document: JsonValue, namespace: string): PolicyProblem[] {
  if (namespace === "") return [];
  return blocks(document).flatMap(([block, path]) => clusterKindProblems(block, path, clusterScoped));
}
