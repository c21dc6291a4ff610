/**
 * Whether a policy qualifies for autogen at all (Kyverno `CanAutoGen`). One rule is enough to
 * disable it for the whole policy: a generate rule, a JSON patch (also inside foreach), a
 * name/names/selector/annotations criterion in any match or exclude filter, or Pod listed with
 * other kinds in one filter. And at least one filter must name Pod or a controller kind verbatim.
 */
import type { MatchResources, PolicyDocument, ResourceDescription, Rule } from "../api/policy.js";
import { asArray, asObject, isPresent } from "./json-copy.js";
import { containsKind } from "./kind-names.js";

const POD_AND_CONTROLLERS = new Set([
  "Pod",
  "DaemonSet",
  "Deployment",
  "Job",
  "StatefulSet",
  "ReplicaSet",
  "ReplicationController",
  "CronJob",
]);

export function canAutogen(policy: PolicyDocument): boolean {
  let needed = false;
  for (const rule of policy.spec.rules ?? []) {
    if (hasGenerate(rule) || hasJsonPatch(rule)) return false;
    const descriptions = [...descriptionsOf(rule.match, false), ...descriptionsOf(rule.exclude, true)];
    for (const rd of descriptions) {
      if (!supportsAutogen(rd)) return false;
      if ((rd.kinds ?? []).some((k) => POD_AND_CONTROLLERS.has(k))) needed = true;
    }
  }
  return needed;
}

function hasGenerate(rule: Rule): boolean {
  const g = rule.generate;
  return g != null && Object.values(g).some(isPresent);
}

function hasJsonPatch(rule: Rule): boolean {
  const m = rule.mutate;
  if (m == null) return false;
  if (isNonEmptyString(m["patchesJson6902"])) return true;
  return asArray(m["foreach"]).some((fe) => isNonEmptyString(asObject(fe)?.["patchesJson6902"]));
}

function isNonEmptyString(v: unknown): boolean {
  return typeof v === "string" && v !== "";
}

/**
 * The resource descriptions autogen inspects: the legacy block (always for match, as Kyverno
 * reads a zero value there), then any[] and all[]. Exclude counts only when written.
 */
function descriptionsOf(block: MatchResources | undefined, isExclude: boolean): ResourceDescription[] {
  if (block == null) return isExclude ? [] : [{}];
  const out: ResourceDescription[] = [block.resources ?? {}];
  for (const f of block.any ?? []) out.push(f.resources ?? {});
  for (const f of block.all ?? []) out.push(f.resources ?? {});
  return out;
}

function supportsAutogen(rd: ResourceDescription): boolean {
  if ((rd.name ?? "") !== "" || (rd.names ?? []).length > 0) return false;
  if (rd.selector != null || rd.annotations != null) return false;
  const kinds = rd.kinds ?? [];
  return !(kinds.length > 1 && containsKind(kinds, "Pod"));
}
