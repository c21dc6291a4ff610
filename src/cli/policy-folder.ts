/**
 * A policy folder laid out as the Kyverno policy library lays it out: each policy beside its
 * `.kyverno-test/` suite, resources and values. As `kyverno apply` skips the files that are not
 * policies, a file read from a folder whose documents are all something else (a Test, a Pod, a
 * Values file) is left out, and one warning counts them. A file that mixes a policy with another
 * document, a YAML error, a kind that is a typo of a policy kind, or a file named on the command
 * line is still reported as before.
 */
import { statSync } from "node:fs";
import { classify, isObject, type JsonValue } from "../engine/index.js";
import type { LoadedDocument } from "../platform/yaml/index.js";

export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The documents of `folder` without its files that hold no policy, and the warning counting them. */
export function withoutNonPolicyFiles(
  folder: string,
  docs: readonly LoadedDocument[],
): { docs: LoadedDocument[]; warning?: string } {
  const bySource = new Map<string, LoadedDocument[]>();
  for (const d of docs) bySource.set(d.source, [...(bySource.get(d.source) ?? []), d]);
  const skipped = [...bySource.entries()].filter(([, file]) => holdsNoPolicy(file)).map(([source]) => source);
  if (skipped.length === 0) return { docs: [...docs] };
  const left = new Set(skipped);
  const n = skipped.length;
  return {
    docs: docs.filter((d) => !left.has(d.source)),
    warning: `${folder}: skipped ${n} file${n === 1 ? "" : "s"} that ${n === 1 ? "is" : "are"} not a policy (tests, resources, values...), as kyverno apply skips them`,
  };
}

function holdsNoPolicy(file: readonly LoadedDocument[]): boolean {
  if (file.some((d) => d.error !== undefined)) return false;
  const values = file.filter((d) => d.value !== undefined);
  return values.length > 0 && values.every((d) => notAPolicy(d.value));
}

/** A `kind: List` stands for its items (as compileDocuments expands it): it is a policy file if one item is. */
function notAPolicy(value: unknown): boolean {
  if (isObject(value) && value["kind"] === "List" && Array.isArray(value["items"]))
    return value["items"].every(notAPolicy);
  // A kind that is a typo of a policy kind (ClusterPolcy) is a policy with a mistake: kept, so its error says which kind.
  const kind = classify(value as JsonValue);
  return kind.role === "not-a-policy" && kind.nearKinds === undefined;
}
