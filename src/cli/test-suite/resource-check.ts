/**
 * For a result row naming `patchedResources` (mutate) or `generatedResource(s)` (generate): compare
 * what the rule produced with the file before the result itself is compared, as `kyverno test` does.
 * A different object is a mismatch (the row's actual result becomes `fail`); an object the file
 * does not hold is `missing` (compare.ts decides the row, as kyverno test: a patched one leaves the
 * row unchecked unless `failOnMissingResources`, a generated one is a Resource error); an unreadable
 * file is an error.
 */
import {
  type JsonObject,
  type PolicyResponse,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
  type RuleResult,
} from "../../engine/index.js";
import type { ResourceCheck, ResourceProblem } from "./compare.js";
import { describeDiff, findSameObject, sameContent, tidy, type ResourceFile } from "./expected-resources.js";
import type { ExpectedResult } from "./test-file.js";

export function resourceCheck(
  expected: ExpectedResult,
  files: ReadonlyMap<string, ResourceFile>,
): ResourceCheck | undefined {
  const patched = expected.patchedResources;
  const generated = [
    ...(expected.generatedResource !== undefined ? [expected.generatedResource] : []),
    ...(expected.generatedResources ?? []),
  ];
  if (patched === undefined && generated.length === 0) return undefined;
  return (response: PolicyResponse, rule: RuleResult): ResourceProblem | undefined => {
    // verifyImages rules patch too (digests, the verify-images annotation), in the mutate phase.
    if (
      patched !== undefined &&
      (rule.type === "Mutation" || (rule.type === "ImageVerify" && response.patchedResource !== undefined))
    ) {
      const actual = rule.patchedTarget ?? response.patchedResource;
      if (actual !== undefined) return compareWith(patched, files, [actual]);
    }
    if (generated.length > 0 && rule.type === "Generation") {
      const actual = (rule.generated ?? []).map((g) => g.resource);
      for (const file of generated) {
        if (actual.length === 0)
          return {
            kind: "mismatch",
            message: `${file}: rule ${rule.rule} generated nothing (${rule.status}: ${rule.message})`,
          };
        const problem = compareWith(file, files, actual);
        if (problem !== undefined) return problem;
      }
    }
    return undefined;
  };
}

/** Every document of `file` must equal one of the `actual` resources (the same object, same content). */
function compareWith(
  file: string,
  files: ReadonlyMap<string, ResourceFile>,
  actual: readonly Resource[],
): ResourceProblem | undefined {
  const loaded = files.get(file);
  if (loaded === undefined || "error" in loaded)
    return { kind: "error", message: `${file}: ${loaded && "error" in loaded ? loaded.error : "not loaded"}` };
  if (actual.length === 0) return { kind: "mismatch", message: `${file}: the rule produced no resource to compare` };
  for (const a of actual) {
    const want = findSameObject(loaded.docs, a);
    if (want === undefined) {
      if (actual.length > 1) continue;
      return { kind: "missing", message: `${file}: no ${describe(a)} in the file` };
    }
    if (!sameContent(a, want)) {
      return {
        kind: "mismatch",
        message: `${file}: ${describe(a)} differs: ${describeDiff(tidy(a), tidy(want)).join("; ")}`,
      };
    }
    return undefined;
  }
  return {
    kind: "missing",
    message: `${file}: none of the generated resources (${actual.map(describe).join(", ")}) is in the file`,
  };
}

function describe(r: JsonObject): string {
  const ns = resourceNamespace(r);
  return `${resourceKind(r)} ${ns === "" ? "" : `${ns}/`}${resourceName(r)}`;
}
