/**
 * The resources one results entry checks. An entry naming `resources` (or `resource`) checks those;
 * an entry naming none checks every resource the policy's rule (or its `autogen-` variants) gave a
 * result for, of the entry's `kind` when it names one. With no such resource the entry still gives
 * one row, which fails as "Not found": an entry never passes by checking nothing.
 */
import { type PolicyResponse, resourceKind, resourceName } from "../../engine/index.js";
import { rulelessRow } from "./compare.js";
import { payloadFile } from "./payload-key.js";
import type { ExpectedResult } from "./test-file.js";

/** The row resource of an entry that names none and matched nothing. */
const NO_MATCHING_RESOURCE = "(no matching resource)";

export function rowResources(expected: ExpectedResult, responses: () => readonly PolicyResponse[]): readonly string[] {
  if (expected.allResources !== true) return expected.resources;
  const policy = bareName(expected.policy);
  const rules = new Set([expected.rule, `autogen-${expected.rule}`, `autogen-cronjob-${expected.rule}`]);
  const names: string[] = [];
  for (const r of responses()) {
    if (r.policy.name !== policy || !r.rules.some((x) => rulelessRow(expected, r.policy) || rules.has(x.rule)))
      continue;
    if (expected.kind !== "" && resourceKind(r.resource) !== expected.kind) continue;
    // A payload (JSON or HTTP) is known by its file, as Kyverno's test keys its responses.
    const name = payloadFile(r.resource) ?? resourceName(r.resource);
    if (!names.includes(name)) names.push(name);
  }
  return names.length > 0 ? names : [NO_MATCHING_RESOURCE];
}

function bareName(policy: string): string {
  const i = policy.lastIndexOf("/");
  return i < 0 ? policy : policy.slice(i + 1);
}
