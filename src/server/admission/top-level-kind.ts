/**
 * The kind a subresource request is matched as. Kyverno matches a request by the top-level kind of
 * the resource it addresses plus the subresource (`pods/exec` matches `Pod/exec`), while the object
 * in the review may be another kind (PodExecOptions, Eviction, Scale). Kyverno asks API discovery;
 * here the parent kind is found among the kinds the loaded policies name, by Kubernetes' plural rule.
 * Otherwise a built-in kind is found by its group and plural (kube/built-in-kinds.ts): a
 * ValidatingPolicy names `deployments/scale`, not the kind, and is matched by the request's
 * resource, as the API server matches it; a wildcard rule (`*∕scale`) then sees the parent kind too.
 */
import { type CompiledPolicy, type JsonValue, policyMatchOf } from "../../engine/index.js";
import { builtInKindOfResource } from "../../kube/built-in-kinds.js";
import type { AdmissionRequestJson, GroupVersionKindJson } from "./types.js";

/** The kind to match the object as, when it differs from the object's own kind; undefined otherwise. */
export function topLevelKind(
  request: AdmissionRequestJson,
  objectKind: string,
  policies: readonly CompiledPolicy[],
): GroupVersionKindJson | undefined {
  const sub = request.subResource ?? "";
  const resource = request.resource;
  if (sub === "" || resource === undefined) return undefined;
  if (objectKind !== "" && pluralForms(objectKind).includes(resource.resource)) return undefined;
  const parent = builtInKindOfResource(resource.group, resource.resource) ?? kindNamedIn(policies, resource.resource);
  return parent === undefined ? undefined : { group: resource.group, version: resource.version, kind: parent };
}

/** Kubernetes guesses a resource name from a kind: lower-case, then `s`, `es` after an s, `ies` for a final y. */
function pluralForms(kind: string): string[] {
  const lower = kind.toLowerCase();
  const forms = [`${lower}s`];
  if (lower.endsWith("s")) forms.push(`${lower}es`);
  if (lower.endsWith("y")) forms.push(`${lower.slice(0, -1)}ies`);
  return forms;
}

/** Kind names are written in kyverno.io rules' match/exclude; a CEL kind's matchConstraints name resources, not kinds. */
function kindNamedIn(policies: readonly CompiledPolicy[], plural: string): string | undefined {
  for (const policy of policies) {
    const match = policyMatchOf(policy);
    if (match.language !== "kyverno") continue;
    for (const compiled of match.rules) {
      const found = findKind(
        [compiled.rule.match as JsonValue | undefined, compiled.rule.exclude as JsonValue | undefined],
        plural,
        0,
      );
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Walk match/exclude blocks for `kinds` lists; a selector's capitalised segments are kind names. */
function findKind(nodes: readonly (JsonValue | undefined)[], plural: string, depth: number): string | undefined {
  if (depth > 6) return undefined;
  for (const node of nodes) {
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      const found = findKind(node, plural, depth + 1);
      if (found !== undefined) return found;
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === "kinds" && Array.isArray(value)) {
        for (const selector of value) {
          if (typeof selector !== "string") continue;
          const kind = selector.split(/[/.]/).find((seg) => /^[A-Z]/.test(seg) && pluralForms(seg).includes(plural));
          if (kind !== undefined) return kind;
        }
      } else if (typeof value === "object" && value !== null) {
        const found = findKind([value], plural, depth + 1);
        if (found !== undefined) return found;
      }
    }
  }
  return undefined;
}
