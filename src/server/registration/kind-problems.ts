/**
 * The kinds a kyverno.io policy's rules match and exclude, checked against what the API server
 * serves, as Kyverno's policy webhook checks them (`validateKinds` / `validKinds` in
 * `pkg/validation/policy/validate.go`, with its texts): a kind no resource serves is refused, and so
 * is a subresource (`Pod/status`) in a validate rule of a policy with background scans on (a
 * background scan lists objects, never subresources). Kyverno's CLI skips both checks (it has no
 * API server), and so does `bylaw apply`.
 */
import {
  kyvernoRulesOf,
  isObject,
  parseKindSelector,
  problem,
  type CompiledPolicy,
  type JsonValue,
  type PolicyProblem,
} from "../../engine/index.js";
import type { KindResource, KindSelector } from "../../kube/discovered-kinds.js";

export type KindResolver = (selector: KindSelector) => readonly KindResource[] | undefined;

const INVALID = "the kind defined in the all match resource is invalid";

/** Problems with the kinds of every rule's match and exclude blocks; none while discovery is unknown. */
export function kindProblems(policy: CompiledPolicy, resolve: KindResolver): PolicyProblem[] {
  const out: PolicyProblem[] = [];
  kyvernoRulesOf(policy).forEach((rule, i) => {
    const backgroundScan = policy.background && rule.validate !== undefined;
    for (const block of ["match", "exclude"] as const)
      for (const { path, kinds } of kindLists(rule[block] as JsonValue | undefined, `spec.rules[${i}].${block}`))
        for (const kind of kinds) {
          const why = kindProblem(kind, backgroundScan, resolve);
          if (why !== undefined) out.push(problem(path, `${INVALID}: ${why}`));
        }
  });
  return out;
}

function kindProblem(kind: string, backgroundScan: boolean, resolve: KindResolver): string | undefined {
  const selector = parseKindSelector(kind);
  if (selector.kind === "" || selector.kind === "*" || kind.includes("{{")) return undefined;
  const found = resolve(selector);
  if (found === undefined) return undefined;
  if (found.length === 0) return `unable to convert GVK to GVR for kinds ${kind}`;
  if (backgroundScan && found.some((r) => r.resource.includes("/")))
    return `background scan enabled with subresource ${kind}`;
  return undefined;
}

/** Each kinds list of a block (`any[j]`, `all[j]`, or the legacy block itself), at Kyverno's path for it. */
function kindLists(block: JsonValue | undefined, path: string): { path: string; kinds: string[] }[] {
  if (!isObject(block)) return [];
  const out: { path: string; kinds: string[] }[] = [];
  const add = (filter: JsonValue, at: string): void => {
    const resources = isObject(filter) ? filter["resources"] : undefined;
    const kinds = isObject(resources) && Array.isArray(resources["kinds"]) ? resources["kinds"] : [];
    const strings = kinds.filter((k): k is string => typeof k === "string");
    if (strings.length > 0) out.push({ path: `${at}.kinds`, kinds: strings });
  };
  for (const list of ["any", "all"] as const) {
    const filters = block[list];
    if (Array.isArray(filters)) filters.forEach((f, j) => add(f, `${path}.${list}[${j}]`));
  }
  add(block, path);
  return out;
}
