/**
 * A Values file's `subresources[]` (`cli.kyverno.io/v1alpha1`, Kyverno's CLI `Subresource`): each
 * entry pairs a subresource's API resource (`name: deployments/scale`, with the group, version and
 * kind of the object it carries: autoscaling/v1 Scale) with its parent's (apps/v1 Deployment).
 * Offline there is no discovery, so this is how `bylaw test` and `bylaw apply` learn that a resource
 * of the subresource's kind is a request on the parent's subresource: it is matched as the parent
 * kind with that subresource (a rule on `Deployment/scale` sees the Scale), as Kyverno's CLI does.
 */
import {
  blockKinds,
  type CompiledPolicy,
  type GroupVersionKind,
  isObject,
  type JsonValue,
  parseApiVersion,
  parseKindSelector,
  type Resource,
  resourceApiVersion,
  resourceKind,
  kyvernoCompiledRules,
} from "../../engine/index.js";

export interface SubresourceEntry {
  /** The kind the subresource's object has (autoscaling/v1 Scale). */
  readonly kind: GroupVersionKind;
  /** The parent's kind (apps/v1 Deployment). */
  readonly parent: GroupVersionKind;
  /** The subresource, the part of `subresource.name` after the slash (`scale`). */
  readonly subresource: string;
}

/** The entries of `subresources`; a malformed one is an error naming it (never silently left out). */
export function parseSubresources(raw: JsonValue | undefined, errors: string[]): SubresourceEntry[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push("subresources: must be a list of {subresource, parentResource} entries");
    return [];
  }
  const out: SubresourceEntry[] = [];
  raw.forEach((entry, i) => {
    const where = `subresources[${i}]`;
    const sub = isObject(entry) ? entry["subresource"] : undefined;
    const parent = isObject(entry) ? entry["parentResource"] : undefined;
    const name = isObject(sub) && typeof sub["name"] === "string" ? sub["name"] : "";
    const slash = name.indexOf("/");
    const kind = apiResourceKind(sub);
    const parentKind = apiResourceKind(parent);
    if (slash <= 0 || slash === name.length - 1)
      errors.push(
        `${where}.subresource.name: ${JSON.stringify(name)} is not <resource>/<subresource> (deployments/scale)`,
      );
    else if (kind === undefined) errors.push(`${where}.subresource: needs kind and version (and group, "" for core)`);
    else if (parentKind === undefined)
      errors.push(`${where}.parentResource: needs kind and version (and group, "" for core)`);
    else out.push({ kind, parent: parentKind, subresource: name.slice(slash + 1) });
  });
  return out;
}

function apiResourceKind(v: JsonValue | undefined): GroupVersionKind | undefined {
  if (!isObject(v)) return undefined;
  const { group = "", version, kind } = v;
  if (typeof group !== "string" || typeof version !== "string" || typeof kind !== "string") return undefined;
  return version === "" || kind === "" ? undefined : { group, version, kind };
}

/**
 * The parent kind and subresource `resource` is a request on, when its kind is an entry's
 * subresource kind (the last such entry, as Kyverno's CLI takes it); undefined otherwise.
 */
export function subresourceRequestOf(
  entries: readonly SubresourceEntry[] | undefined,
  resource: Resource,
): { matchKind: GroupVersionKind; subresource: string } | undefined {
  if (entries === undefined || entries.length === 0) return undefined;
  const gv = parseApiVersion(resourceApiVersion(resource));
  const kind = resourceKind(resource);
  let found: SubresourceEntry | undefined;
  for (const e of entries)
    if (e.kind.kind === kind && e.kind.group === gv.group && e.kind.version === gv.version) found = e;
  return found === undefined ? undefined : { matchKind: found.parent, subresource: found.subresource };
}

/**
 * What Kyverno's CLI reports (as `Error: subresource <s> not found for parent resource <Kind>`, and
 * goes on) when a rule names a subresource of a kind no `subresources` entry maps: offline that rule
 * can match no resource. A warning per policy, rule and kind, so that it is never a silent pass.
 * Wildcard kinds and subresources (`*∕scale`, `Pod/*`) need no entry to be written and are not named.
 */
export function unmappedSubresources(
  policies: readonly CompiledPolicy[],
  entries: readonly SubresourceEntry[] | undefined,
): string[] {
  const out = new Set<string>();
  for (const policy of policies)
    for (const compiled of kyvernoCompiledRules(policy)) {
      if (compiled.autogenOf !== undefined) continue;
      for (const text of [...blockKinds(compiled.rule.match), ...blockKinds(compiled.rule.exclude)]) {
        const s = parseKindSelector(text);
        if (s.subresource === "" || /[*?]/.test(s.kind + s.subresource) || mapped(s, entries ?? [])) continue;
        out.add(
          `policy ${policy.name} rule ${compiled.name}: kind ${JSON.stringify(text)}: subresource ${s.subresource} not found for parent resource ${s.kind}; offline it matches only a resource of the kind a values file's subresources entry names for it (there is none), so the rule checks nothing here`,
        );
      }
    }
  return [...out];
}

function mapped(s: ReturnType<typeof parseKindSelector>, entries: readonly SubresourceEntry[]): boolean {
  return entries.some(
    (e) =>
      e.parent.kind === s.kind &&
      e.subresource.toLowerCase() === s.subresource.toLowerCase() &&
      (s.group === "*" || s.group === e.parent.group) &&
      (s.version === "*" || s.version === e.parent.version),
  );
}
