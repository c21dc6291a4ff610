/**
 * What a background scan lists, asked of each policy's head (`policyMatchOf`, ADR 0005 step 1):
 * - a kyverno.io policy: the kinds the match blocks of its validate rules name (autogen rules
 *   included: a Pod policy's Deployment and CronJob rules), as kind selectors (`Pod`,
 *   `apps/v1/Deployment`);
 * - a CEL kind (ValidatingPolicy, ValidatingAdmissionPolicy, ImageValidatingPolicy, …): the
 *   resources its matchConstraints' resourceRules name (autogen copies included), by group,
 *   version and plural, as the API server matches them.
 * Wildcards, variables and subresources name nothing to list; they are returned apart so the
 * caller can say they are not scanned.
 */
import { isObject, parseKindSelector, policyMatchOf, type CompiledPolicy, type JsonValue } from "../../engine/index.js";
import type { ResourceSelector } from "../../kube/discovery.js";

/** One thing to list: the selector discovery resolves, and the text logs name it by. */
export interface ScanTarget {
  readonly text: string;
  readonly selector: ResourceSelector;
}

interface ScanKinds {
  /** Deduplicated, in the order of their text. */
  readonly targets: ScanTarget[];
  /** `policy: kind` (or `policy: group/version/resource`) for each that cannot be listed (`*`, a variable, a subresource). */
  readonly unlisted: string[];
}

export function scanKinds(policies: readonly CompiledPolicy[]): ScanKinds {
  const targets = new Map<string, ScanTarget>();
  const unlisted = new Set<string>();
  for (const policy of policies) {
    const match = policyMatchOf(policy);
    if (match.language === "kyverno") {
      for (const compiled of match.rules) {
        if (compiled.rule.validate === undefined) continue;
        for (const kind of matchKinds(compiled.rule.match as JsonValue | undefined)) {
          const s = parseKindSelector(kind);
          if (s.kind === "" || s.kind.includes("*") || s.subresource !== "" || kind.includes("{{"))
            unlisted.add(`${policy.name}: ${kind}`);
          else
            targets.set(kind, {
              text: kind,
              selector: { by: "kind", group: s.group, version: s.version, kind: s.kind, subresource: "" },
            });
        }
      }
    } else if (match.language === "cel") {
      for (const constraints of match.constraints)
        for (const r of constraints.resourceRules?.include ?? [])
          for (const group of r.groups)
            for (const version of r.versions)
              for (const resource of r.resources) {
                const text = `${group === "" ? "core" : group}/${version}/${resource}`;
                if (resource.includes("*") || resource.includes("/")) unlisted.add(`${policy.name}: ${text}`);
                else targets.set(text, { text, selector: { by: "resource", group, version, resource } });
              }
    }
  }
  return {
    targets: [...targets.values()].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)),
    unlisted: [...unlisted].sort(),
  };
}

function matchKinds(block: JsonValue | undefined): string[] {
  if (!isObject(block)) return [];
  const filters: JsonValue[] = [block];
  for (const list of ["any", "all"] as const) {
    const entries = block[list];
    if (Array.isArray(entries)) filters.push(...entries);
  }
  return filters.flatMap((filter) => {
    const resources = isObject(filter) ? filter["resources"] : undefined;
    const kinds = isObject(resources) ? resources["kinds"] : undefined;
    return Array.isArray(kinds) ? kinds.filter((k): k is string => typeof k === "string") : [];
  });
}
