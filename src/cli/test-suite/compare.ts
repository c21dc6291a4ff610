/**
 * Compare engine responses with one expected row the way `kyverno test` does (spec §11.2, §11.4):
 * policies by name (a `ns/` prefix is ignored), resources by name or `namespace/name`, rules by name
 * or their `autogen-` / `autogen-cronjob-` variants, results as policy-report results (fail becomes
 * warn when the policy is not scored). A response with no matching rule means the resource was
 * excluded, which counts as a pass.
 */
import { resourceName, resourceNamespace } from "../../engine/api/resource.js";
import type { RuleStatus } from "../../engine/api/rule-result.js";
import type { PolicyResponse } from "../../engine/pipeline/types.js";
import type { ExpectedResult } from "./test-file.js";

export interface RowVerdict {
  readonly ok: boolean;
  readonly actual: string | null;
  readonly reason: string;
  readonly message: string;
}

export function reportResult(status: RuleStatus, scored: boolean): string {
  return status === "fail" && !scored ? "warn" : status;
}

function bareName(policy: string): string {
  const i = policy.lastIndexOf("/");
  return i < 0 ? policy : policy.slice(i + 1);
}

export function resourceMatches(response: PolicyResponse, wanted: string): boolean {
  const name = resourceName(response.resource);
  if (wanted === name) return true;
  const ns = resourceNamespace(response.resource) || "default";
  return wanted === `${ns}/${name}`;
}

export function compareRow(expected: ExpectedResult, resource: string, responses: readonly PolicyResponse[]): RowVerdict {
  const policy = bareName(expected.policy);
  const candidates = responses.filter((r) => r.policy.name === policy && resourceMatches(r, resource));
  if (candidates.length === 0) return { ok: false, actual: null, reason: "Not found", message: `no result for policy ${policy} and resource ${resource}` };
  const names = new Set([expected.rule, `autogen-${expected.rule}`, `autogen-cronjob-${expected.rule}`]);
  let verdict: RowVerdict | undefined;
  for (const response of candidates) {
    const rules = response.rules.filter((r) => names.has(r.rule));
    if (rules.length === 0) {
      verdict ??= { ok: true, actual: null, reason: "Excluded", message: "Excluded" };
      continue;
    }
    for (const rule of rules) {
      const actual = reportResult(rule.status, response.policy.scored);
      const ok = actual === expected.result;
      const v: RowVerdict = { ok, actual, reason: ok ? "Ok" : `Want ${expected.result}, got ${actual}`, message: rule.message };
      if (verdict === undefined || verdict.reason === "Excluded" || (verdict.ok && !ok)) verdict = v;
    }
  }
  return verdict ?? { ok: false, actual: null, reason: "Not found", message: "no result" };
}
