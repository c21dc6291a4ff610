/**
 * The kinds a background scan lists: those the match blocks of the background policies' validate
 * rules name (autogen rules included: a Pod policy's Deployment and CronJob rules), as kind
 * selectors (`Pod`, `apps/v1/Deployment`). Wildcards and variables name no kind to list; they are
 * returned apart so the caller can say they are not scanned.
 */
import { isObject, parseKindSelector, type CompiledPolicy, type JsonValue } from "../../engine/index.js";

interface ScanKinds {
  /** The kind strings as written, deduplicated. */
  readonly kinds: string[];
  /** `policy: kind` for each kind that cannot be listed (`*`, a variable). */
  readonly unlisted: string[];
}

export function scanKinds(policies: readonly CompiledPolicy[]): ScanKinds {
  const kinds = new Set<string>();
  const unlisted = new Set<string>();
  for (const policy of policies)
    for (const compiled of policy.rules) {
      if (compiled.rule.validate === undefined) continue;
      for (const kind of matchKinds(compiled.rule.match as JsonValue | undefined)) {
        const selector = parseKindSelector(kind);
        if (selector.kind === "" || selector.kind.includes("*") || selector.subresource !== "" || kind.includes("{{"))
          unlisted.add(`${policy.name}: ${kind}`);
        else kinds.add(kind);
      }
    }
  return { kinds: [...kinds].sort(), unlisted: [...unlisted].sort() };
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
