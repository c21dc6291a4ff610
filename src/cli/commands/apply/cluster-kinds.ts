/**
 * What `bylaw apply --cluster` lists: the kinds the policies can match, as Kyverno's CLI finds them
 * (cmd/cli/kubectl-kyverno/utils/common fetch.go, GetKindsFromRule): every rule's `match` kinds
 * (`resources.kinds`, `any[].resources.kinds`, `all[].resources.kinds`), autogen rules included.
 * `exclude` kinds only narrow a match, so they add nothing to list. Every CEL kind's head
 * (`policyMatchOf`: a ValidatingPolicy's, ValidatingAdmissionPolicy's, MutatingPolicy's,
 * GeneratingPolicy's, ImageValidatingPolicy's and DeletingPolicy's `matchConstraints`, autogen
 * copies included) names resources (plural) by group and version instead (`resourceRules`;
 * `excludeResourceRules` only narrow). A policy with no matcher of its own (`none`: a kind Bylaw
 * does not run, whose error every resource gets) lists every kind.
 */
import { blockKinds, type CompiledPolicy, parseKindSelector, policyMatchOf } from "../../../engine/index.js";

interface ResourceRuleNames {
  readonly groups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
}

/** One thing to list: a kind selector (`Pod`, `apps/v1/Deployment`, `*`) or a resource a CEL kind's matchConstraints name. */
type Wanted =
  | {
      readonly by: "kind";
      readonly group: string;
      readonly version: string;
      readonly kind: string;
      readonly subresource: string;
      readonly text: string;
      readonly policy: string;
    }
  | {
      readonly by: "resource";
      readonly group: string;
      readonly version: string;
      readonly resource: string;
      readonly text: string;
      readonly policy: string;
    };

export function wantedResources(policies: readonly CompiledPolicy[]): Wanted[] {
  const out: Wanted[] = [];
  const seen = new Set<string>();
  const add = (w: Wanted): void => {
    const key =
      w.by === "kind"
        ? `k|${w.group}|${w.version}|${w.kind}|${w.subresource}`
        : `r|${w.group}|${w.version}|${w.resource}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(w);
  };
  for (const policy of policies) {
    const name = policy.namespace === "" ? policy.name : `${policy.namespace}/${policy.name}`;
    const match = policyMatchOf(policy);
    if (match.language === "none")
      add({ by: "kind", group: "*", version: "*", kind: "*", subresource: "", text: "*", policy: name });
    else if (match.language === "cel")
      for (const c of match.constraints) for (const r of c.resourceRules?.include ?? []) addResources(r, name, add);
    else
      for (const compiled of match.rules)
        for (const text of blockKinds(compiled.rule.match)) {
          const s = parseKindSelector(text);
          add({
            by: "kind",
            group: s.group,
            version: s.version,
            kind: s.kind,
            subresource: s.subresource,
            text,
            policy: name,
          });
        }
  }
  return out;
}

/** Every group × version × resource a matchConstraints resource rule names. */
function addResources(r: ResourceRuleNames, policy: string, add: (w: Wanted) => void): void {
  for (const group of r.groups)
    for (const version of r.versions)
      for (const resource of r.resources)
        add({
          by: "resource",
          group,
          version,
          resource,
          text: `${group === "" ? "core" : group}/${version}/${resource}`,
          policy,
        });
}

/**
 * Whether a served kind is listed: as Kyverno's fetcher, -n lists a namespace's objects and leaves
 * cluster-scoped kinds out, --cluster-wide-resources lists only cluster-scoped kinds, and both
 * together list the two.
 */
export function listed(
  r: { readonly namespaced: boolean },
  namespace: string | undefined,
  clusterWide: boolean,
): boolean {
  if (!r.namespaced) return namespace === undefined || clusterWide;
  return namespace !== undefined || !clusterWide;
}
