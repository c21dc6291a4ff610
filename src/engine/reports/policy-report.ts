/**
 * Build wgpolicyk8s.io/v1alpha2 PolicyReport (one per namespace) and ClusterPolicyReport (cluster-scoped
 * resources) objects from engine responses, with Kyverno's result fields and summaries (Kyverno `pkg/utils/report/*`).
 * Pure: the time the results carry is passed in (`nowMillis`), so `apply -p`, the webhook's Audit
 * results and a background scan build the same report from the same responses.
 */
import type { JsonObject } from "../api/json.js";
import { resourceApiVersion, resourceKind, resourceName, resourceNamespace } from "../api/resource.js";
import type { RuleResult } from "../api/rule-result.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { reportResult } from "./report-result.js";

type Summary = { pass: number; fail: number; warn: number; error: number; skip: number };

export function buildPolicyReports(responses: readonly PolicyResponse[], nowMillis: number): JsonObject[] {
  const byNamespace = new Map<string, { results: JsonObject[]; summary: Summary }>();
  const seconds = Math.floor(nowMillis / 1000);
  for (const response of responses) {
    const ns = resourceNamespace(response.resource);
    const bucket = byNamespace.get(ns) ?? { results: [], summary: { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 } };
    for (const rule of response.rules) {
      const result = reportResult(rule.status, response.policy.scored) as keyof Summary;
      const properties = resultProperties(rule, response.policy.background ? "background scan" : "admission review");
      bucket.summary[result]++;
      const policy = response.policy.namespace
        ? `${response.policy.namespace}/${response.policy.name}`
        : response.policy.name;
      bucket.results.push({
        source: "kyverno",
        policy,
        rule: rule.rule,
        result,
        message: overriddenMessage(rule, properties),
        scored: response.policy.scored,
        ...(response.policy.severity !== undefined ? { severity: response.policy.severity } : {}),
        ...(response.policy.category !== undefined ? { category: response.policy.category } : {}),
        resources: [
          {
            apiVersion: resourceApiVersion(response.resource),
            kind: resourceKind(response.resource),
            name: resourceName(response.resource),
            ...(ns !== "" ? { namespace: ns } : {}),
          },
        ],
        properties,
        timestamp: { seconds, nanos: 0 },
      });
    }
    byNamespace.set(ns, bucket);
  }
  const reports: JsonObject[] = [];
  for (const [ns, { results, summary }] of [...byNamespace].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (results.length === 0) continue;
    reports.push(
      ns === ""
        ? {
            apiVersion: "wgpolicyk8s.io/v1alpha2",
            kind: "ClusterPolicyReport",
            metadata: { name: "merged", labels: { "app.kubernetes.io/managed-by": "kyverno" } },
            summary,
            results,
          }
        : {
            apiVersion: "wgpolicyk8s.io/v1alpha2",
            kind: "PolicyReport",
            metadata: { name: `merged`, namespace: ns, labels: { "app.kubernetes.io/managed-by": "kyverno" } },
            summary,
            results,
          },
    );
  }
  return reports;
}

/**
 * A result's properties, as Kyverno's report does (pkg/utils/report/results.go): the engine's
 * (podSecurity standard/version/controls/controlsJSON, reportProperties), `process`, and
 * `exceptions`: the names (without namespace) of the PolicyExceptions that applied, joined by ",".
 * Keys sorted, as Go marshals a map.
 */
function resultProperties(rule: RuleResult, process: string): Record<string, string> {
  const props: Record<string, string> = { ...(rule.properties ?? {}), process };
  if (rule.exceptions !== undefined && rule.exceptions.length > 0)
    props["exceptions"] = rule.exceptions.map((key) => key.slice(key.indexOf("/") + 1)).join(",");
  return Object.fromEntries(Object.entries(props).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** reportProperties may override the message: `<status>Message` for the engine's status, then `message`. */
function overriddenMessage(rule: RuleResult, properties: Readonly<Record<string, string>>): string {
  const generic = properties["message"];
  if (generic !== undefined && generic !== "") return generic;
  const specific = properties[`${rule.status}Message`];
  return specific !== undefined && specific !== "" ? specific : rule.message;
}
