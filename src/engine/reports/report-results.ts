/**
 * The rows a report holds for one engine response: one per rule that matched, with Kyverno's result
 * fields (`pkg/utils/report/results.go`). Shared by the per-namespace report of `apply -p` and the
 * per-resource report of a background scan, so both show the same row for the same response.
 */
import { isObject, type JsonObject } from "../api/json.js";
import { resourceApiVersion, resourceKind, resourceName, resourceNamespace } from "../api/resource.js";
import type { RuleResult } from "../api/rule-result.js";
import { kindDescriptor } from "../kinds/registry.js";
import type { PolicyResponse } from "../pipeline/types.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { reportResult } from "./report-result.js";

/**
 * The namespace a policy's results are filed under, as Kyverno keys the policy object by its
 * metadata: a namespaced policy's own, and also the one a cluster-scoped kind's file names anyway
 * (a MutatingPolicy written with `namespace: kyverno` reports as `kyverno/NAME`, in its own report;
 * the API server drops such a namespace, so only offline runs see it); else "".
 */
export function reportNamespace(policy: CompiledPolicy): string {
  if (policy.namespace !== "") return policy.namespace;
  const meta = policy.origin.document["metadata"];
  const ns = isObject(meta) ? meta["namespace"] : undefined;
  return typeof ns === "string" ? ns : "";
}

export type Summary = { pass: number; fail: number; warn: number; error: number; skip: number };

export function emptySummary(): Summary {
  return { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
}

/**
 * One row per rule of the response, stamped `seconds`. `withResources`: each row names the
 * resource (`resources[]`), as a report that holds many resources needs; a per-resource report
 * names it once, in its `scope`.
 */
export function reportRows(response: PolicyResponse, seconds: number, withResources: boolean): JsonObject[] {
  const ns = resourceNamespace(response.resource);
  const filed = reportNamespace(response.policy);
  const policy = filed !== "" ? `${filed}/${response.policy.name}` : response.policy.name;
  const source = kindDescriptor(response.policy.kind)?.reportSource ?? "kyverno";
  const { scored, severity, category, background } = response.policy;
  const process = background ? "background scan" : "admission review";
  // Fields set one by one in the row's key order (the order its JSON, and so a report's digest, has):
  // a row of each rule of each scanned resource, not worth a spread of conditional literals each.
  return response.rules.map((rule) => {
    const properties = resultProperties(rule, process);
    const row: JsonObject = { source, policy };
    // Omitted when empty (a CEL policy's result), as Kyverno's report result omits it.
    if (rule.rule !== "") row["rule"] = rule.rule;
    row["result"] = reportResult(rule.status, scored);
    row["message"] = overriddenMessage(rule, properties);
    row["scored"] = scored;
    if (severity !== undefined) row["severity"] = severity;
    if (category !== undefined) row["category"] = category;
    // Each field omitted when empty, as a Kubernetes ObjectReference is written (a JSON payload has none).
    if (withResources)
      row["resources"] = [
        nonEmpty({
          apiVersion: resourceApiVersion(response.resource),
          kind: resourceKind(response.resource),
          name: resourceName(response.resource),
          namespace: ns,
        }),
      ];
    row["properties"] = properties;
    row["timestamp"] = { seconds, nanos: 0 };
    return row;
  });
}

function nonEmpty(fields: Record<string, string>): JsonObject {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ""));
}

/** Counts each row's `result` into `summary`. */
export function countRows(summary: Summary, rows: readonly JsonObject[]): void {
  for (const row of rows) summary[row["result"] as keyof Summary]++;
}

/**
 * A result's properties, as Kyverno's report does (pkg/utils/report/results.go): the engine's
 * (podSecurity standard/version/controls/controlsJSON, reportProperties), `process`, and
 * `exceptions`: the names (without namespace) of the PolicyExceptions that applied, joined by ",".
 * Keys sorted, as Go marshals a map.
 */
function resultProperties(rule: RuleResult, process: string): Record<string, string> {
  // Most rows: nothing but `process` (no copy, no sort: a row of each rule of each scanned resource).
  if (rule.properties === undefined && (rule.exceptions === undefined || rule.exceptions.length === 0))
    return { process };
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
