/**
 * What `/api/reports` answers: the rows of every report kind the viewer may list, read with the
 * viewer's token (src/kube/viewer-reads.ts), and for each kind whether it was read, forbidden,
 * not installed or failed, so the page never shows "no results" for what it could not read.
 */
import type { ViewerReads } from "../kube/viewer-reads.js";
import { rowsOfReport, type ReportRow } from "./report-rows.js";

interface ReportKind {
  readonly kind: string;
  readonly path: string;
}

const REPORT_KINDS: readonly ReportKind[] = [
  { kind: "PolicyReport", path: "/apis/wgpolicyk8s.io/v1alpha2/policyreports" },
  { kind: "ClusterPolicyReport", path: "/apis/wgpolicyk8s.io/v1alpha2/clusterpolicyreports" },
  { kind: "Report", path: "/apis/openreports.io/v1alpha1/reports" },
  { kind: "ClusterReport", path: "/apis/openreports.io/v1alpha1/clusterreports" },
];

interface SourceState {
  readonly kind: string;
  /** read, unauthorized (the token was refused), forbidden (the viewer may not list it), missing (not installed) or failed. */
  readonly state: "read" | "unauthorized" | "forbidden" | "missing" | "failed";
  readonly message: string;
}

export interface ReportsAnswer {
  readonly rows: readonly ReportRow[];
  readonly sources: readonly SourceState[];
  /** Changes when any list's resourceVersion does: the page redraws only then. */
  readonly version: string;
}

export async function readReports(reads: ViewerReads, token: string): Promise<ReportsAnswer> {
  const lists = await Promise.all(REPORT_KINDS.map((k) => reads.get(token, k.path)));
  const rows: ReportRow[] = [];
  const sources: SourceState[] = [];
  const versions: string[] = [];
  lists.forEach((answer, i) => {
    const { kind } = REPORT_KINDS[i] as ReportKind;
    if (!answer.ok) {
      const state =
        answer.status === 401
          ? "unauthorized"
          : answer.status === 403
            ? "forbidden"
            : answer.status === 404
              ? "missing"
              : "failed";
      sources.push({ kind, state, message: answer.message });
      versions.push(`${kind}:${state}`);
      return;
    }
    const list = answer.body as { metadata?: { resourceVersion?: unknown }; items?: unknown };
    for (const item of Array.isArray(list.items) ? list.items : []) rows.push(...rowsOfReport(kind, item));
    sources.push({ kind, state: "read", message: "" });
    const version = list.metadata?.resourceVersion;
    versions.push(`${kind}:${typeof version === "string" ? version : ""}`);
  });
  return { rows, sources, version: versions.join(",") };
}
