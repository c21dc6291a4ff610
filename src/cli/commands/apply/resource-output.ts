/**
 * The resources `bylaw apply` produced: resources its mutate rules changed, targets its
 * mutate-existing rules patched, and what its generate rules would create (with Kyverno's labels).
 */
import { join } from "node:path";
import {
  type PolicyResponse,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../../engine/index.js";
import { writeYamlStream } from "../../../platform/yaml/index.js";

export interface ProducedResource {
  readonly why: "mutated" | "mutated-target" | "generated";
  readonly policy: string;
  readonly rule: string;
  readonly resource: Resource;
}

export function producedResources(responses: readonly PolicyResponse[]): ProducedResource[] {
  const out: ProducedResource[] = [];
  for (const response of responses) {
    for (const rule of response.rules) {
      if (rule.status !== "pass") continue;
      if (rule.patchedTarget !== undefined)
        out.push({
          why: "mutated-target",
          policy: response.policy.name,
          rule: rule.rule,
          resource: rule.patchedTarget,
        });
      // A GeneratingPolicy's objects as Kyverno's CLI prints them: its CEL generator labels nothing
      // offline (the controller adds the labels when it writes them).
      const labelled = response.policy.language !== "generating";
      for (const g of rule.generated ?? [])
        out.push({
          why: "generated",
          policy: response.policy.name,
          rule: rule.rule,
          resource: labelled ? g.toApply : g.resource,
        });
    }
  }
  return out;
}

/** One entry per resource: a later patch of the same object replaces an earlier one. */
export function dedupe(resources: readonly ProducedResource[]): ProducedResource[] {
  const byKey = new Map<string, ProducedResource>();
  for (const r of resources) byKey.set(objectKey(r.resource), r);
  return [...byKey.values()];
}

function objectKey(r: Resource): string {
  return `${resourceKind(r)}/${resourceNamespace(r)}/${resourceName(r)}`;
}

/**
 * The resources as one YAML stream (the project's writer), each headed by `# <why> by <policy>/<rule>`;
 * by `<policy>` alone for a result named by its policy (a GeneratingPolicy's) or by no rule.
 */
export function yamlStream(resources: readonly ProducedResource[]): string {
  return writeYamlStream(
    resources.map((r) => ({
      value: r.resource,
      comment: `${r.why} by ${r.policy}${r.rule === "" || r.rule === r.policy ? "" : `/${r.rule}`}`,
    })),
  );
}

/** Files to write for `-o PATH`: one multi-document file, or one file per resource in a folder. */
export function outputFiles(path: string, resources: readonly ProducedResource[]): Map<string, string> {
  if (/\.ya?ml$/i.test(path)) return new Map([[path, yamlStream(resources)]]);
  const files = new Map<string, string>();
  for (const r of resources) {
    const parts = [resourceKind(r.resource), resourceNamespace(r.resource), resourceName(r.resource)].filter(
      (p) => p !== "",
    );
    const base = parts
      .join("-")
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, "_");
    let file = join(path, `${base}.yaml`);
    for (let n = 2; files.has(file); n++) file = join(path, `${base}-${n}.yaml`);
    files.set(file, yamlStream([r]));
  }
  return files;
}
