/**
 * The report of one resource, in Kyverno 1.19's layout (`docs/dev/reports`, `pkg/utils/report`):
 * a wgpolicyk8s.io/v1alpha2 PolicyReport in the resource's namespace (a ClusterPolicyReport for a
 * cluster-scoped resource), named by the resource's uid, owned by it (so it goes when the resource
 * goes), labelled `app.kubernetes.io/managed-by: kyverno`, with the resource as its `scope`, one row
 * per rule result and a summary. Pure: the time the rows carry is passed in.
 */
import { textOf, type JsonObject } from "../api/json.js";
import {
  resourceApiVersion,
  resourceKind,
  resourceMetadata,
  resourceName,
  resourceNamespace,
} from "../api/resource.js";
import type { PolicyResponse } from "../pipeline/types.js";
import { countRows, emptySummary, reportRows } from "./report-results.js";

/** The report for `resource` from the responses of the policies that matched it; undefined when no rule did. */
export function buildResourceReport(
  resource: JsonObject,
  responses: readonly PolicyResponse[],
  nowMillis: number,
): JsonObject | undefined {
  const seconds = Math.floor(nowMillis / 1000);
  const results = responses
    .flatMap((r) => reportRows(r, seconds, false))
    .sort((a, b) => rowKey(a).localeCompare(rowKey(b)));
  if (results.length === 0) return undefined;
  const summary = emptySummary();
  countRows(summary, results);
  const rawUid = resourceMetadata(resource)["uid"];
  const uid = typeof rawUid === "string" ? rawUid : "";
  const ns = resourceNamespace(resource);
  const ref = { apiVersion: resourceApiVersion(resource), kind: resourceKind(resource), name: resourceName(resource) };
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: ns === "" ? "ClusterPolicyReport" : "PolicyReport",
    metadata: {
      name: uid,
      ...(ns !== "" ? { namespace: ns } : {}),
      labels: { "app.kubernetes.io/managed-by": "kyverno" },
      ownerReferences: [{ ...ref, uid }],
    },
    scope: { ...ref, ...(ns !== "" ? { namespace: ns } : {}), uid },
    summary,
    results,
  };
}

function rowKey(row: JsonObject): string {
  return `${textOf(row["policy"])}\u0000${textOf(row["rule"])}`;
}
