/**
 * What the reports controller and admission write (src/controllers/reports): a PolicyReport or
 * ClusterPolicyReport (or openreports.io Report or ClusterReport) read, created, replaced (PUT with the resourceVersion read, so a write over a newer
 * one is a 409 Conflict) or deleted. Each throws the client's error (KubeError: its status and the
 * server's message) for the caller to report.
 */
import type { JsonObject } from "../engine/index.js";
import type { KubeClient } from "./kube-client.js";
import { gvrPath, type Gvr } from "./types.js";

type Writer = Pick<KubeClient, "sendJson">;
type Reader = Pick<KubeClient, "getJson">;

/** The report resources, by the report's kind. */
const REPORT_GVRS = {
  PolicyReport: { group: "wgpolicyk8s.io", version: "v1alpha2", resource: "policyreports" },
  ClusterPolicyReport: { group: "wgpolicyk8s.io", version: "v1alpha2", resource: "clusterpolicyreports" },
  Report: { group: "openreports.io", version: "v1alpha1", resource: "reports" },
  ClusterReport: { group: "openreports.io", version: "v1alpha1", resource: "clusterreports" },
} as const satisfies Record<string, Gvr>;

/** The report resource of a report kind (`PolicyReport` when it is none of them). */
export function reportGvr(kind: unknown): Gvr {
  return typeof kind === "string" && kind in REPORT_GVRS
    ? REPORT_GVRS[kind as keyof typeof REPORT_GVRS]
    : REPORT_GVRS.PolicyReport;
}

function collectionPath(report: JsonObject): string {
  const gvr = reportGvr(report["kind"]);
  const ns = (report["metadata"] as { namespace?: unknown } | undefined)?.namespace;
  return gvrPath(gvr, typeof ns === "string" && ns !== "" ? ns : undefined);
}

function objectPath(report: JsonObject): string {
  const name = (report["metadata"] as { name?: unknown } | undefined)?.name;
  return `${collectionPath(report)}/${encodeURIComponent(String(name))}`;
}

/**
 * The field manager of every report Bylaw writes (`?fieldManager=`): a report whose managedFields
 * name no other manager was written by Bylaw alone (the scan believes its annotations then).
 */
export const REPORT_FIELD_MANAGER = "bylaw";
const AS_MANAGER = `?fieldManager=${REPORT_FIELD_MANAGER}`;

/** Creates the report; answers the resourceVersion the server gave it (asking for the metadata only: the rows are not sent back). */
export async function createReport(client: Writer, report: JsonObject): Promise<string | undefined> {
  return versionOf(await client.sendJson("POST", collectionPath(report) + AS_MANAGER, report, { answer: "metadata" }));
}

/** Replaces the report; answers the resourceVersion the server gave it (from its metadata only). */
export async function replaceReport(client: Writer, report: JsonObject): Promise<string | undefined> {
  return versionOf(await client.sendJson("PUT", objectPath(report) + AS_MANAGER, report, { answer: "metadata" }));
}

function versionOf(written: unknown): string | undefined {
  const meta = (written as { metadata?: { resourceVersion?: unknown } } | null)?.metadata;
  return typeof meta?.resourceVersion === "string" ? meta.resourceVersion : undefined;
}

export async function deleteReport(client: Writer, report: JsonObject): Promise<void> {
  await client.sendJson("DELETE", objectPath(report), { apiVersion: "v1", kind: "DeleteOptions" }, { answer: "none" });
}

/** The report of this kind, namespace and name as stored (with its resourceVersion), or undefined when there is none. */
export async function readReport(client: Reader, report: JsonObject): Promise<JsonObject | undefined> {
  try {
    const read = (await client.getJson(objectPath(report))) as JsonObject;
    return { ...read, kind: report["kind"] ?? null };
  } catch (e) {
    if ((e as { status?: unknown }).status === 404) return undefined;
    throw e;
  }
}
