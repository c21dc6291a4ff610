/**
 * What to do with one resource's report (Kyverno 1.19: one report per resource, named by its uid):
 * given the resource, the responses of the background policies that matched it and the report that
 * exists (from the reports informer), write it (create or update), delete it, or do nothing. Pure:
 * the time is passed in. Bounded by design: a report is written only when its content (results
 * without their timestamps, summary, scope, owner) changed, and no report is kept for a resource no
 * policy matches.
 */
import {
  buildResourceReport,
  inReportFormat,
  type JsonObject,
  type PolicyResponse,
  type ReportFormat,
} from "../../engine/index.js";
import { knownContent, rowPoliciesOf, writtenByBylawAlone } from "./compact-report.js";
import { withContentAnnotations, writtenContent } from "./report-annotations.js";
import { builtDigest, contentDigest, rowsOf } from "./report-content.js";

/**
 * `read`: the existing report is the informer's compacted copy (no rows) and holds rows of a policy
 * `keep` keeps: read it whole and decide again.
 */
export type ReportAction =
  | { readonly action: "create"; readonly report: JsonObject }
  | { readonly action: "update"; readonly report: JsonObject }
  | { readonly action: "delete"; readonly report: JsonObject }
  | { readonly action: "read"; readonly report: JsonObject }
  | { readonly action: "none" };

export interface ReconcileInput {
  readonly resource: JsonObject;
  readonly responses: readonly PolicyResponse[];
  /** The report that exists for the resource, as read whole or as the reports informer keeps it (compact-report.ts). */
  readonly existing: JsonObject | undefined;
  readonly nowMillis: number;
  /**
   * The existing rows to keep where the responses hold none for their rule: a scan keeps the
   * admission results of policies it does not evaluate; admission keeps every other row. A row's
   * `policy` alone decides (a compacted report is asked by its policies' names). Default: none.
   */
  readonly keep?: (row: JsonObject) => boolean;
  /** Where reports are written (default wgpolicyk8s.io PolicyReports). */
  readonly format?: ReportFormat;
}

export function reconcileReport(input: ReconcileInput): ReportAction {
  const existing = input.existing;
  const keep = input.keep;
  const known = existing !== undefined ? knownContent(existing) : undefined;
  // A compacted report whose rows cannot be told (someone else wrote it), or that holds rows to keep: read it whole.
  if (known === "unknown") return { action: "read", report: existing as JsonObject };
  if (keep !== undefined && known !== undefined)
    if (rowPoliciesOf(existing as JsonObject).some((policy) => keep({ policy })))
      return { action: "read", report: existing as JsonObject };
  const kept = keep !== undefined && existing !== undefined ? rowsOf(existing).filter((row) => keep(row)) : [];
  const raw = buildResourceReport(input.resource, input.responses, input.nowMillis, kept);
  const built = raw !== undefined ? inReportFormat(raw, input.format ?? "wgpolicyk8s") : undefined;
  if (built === undefined) return existing !== undefined ? { action: "delete", report: existing } : { action: "none" };
  const digest = builtDigest(built);
  const annotated = withContentAnnotations(built, digest);
  if (existing === undefined) return { action: "create", report: annotated };
  const same =
    known === undefined
      ? contentDigest(built) === contentDigest(existing) && annotatedAs(existing, digest)
      : known.digest === (known.form === "written" ? digest : contentDigest(built));
  if (same) return { action: "none" };
  const meta = annotated["metadata"] as JsonObject;
  const read = existing["metadata"] as JsonObject | undefined;
  // The resourceVersion read: two replicas briefly both leading cannot overwrite each other unseen.
  const resourceVersion = read?.["resourceVersion"];
  return {
    action: "update",
    report: {
      ...annotated,
      metadata: { ...meta, ...(typeof resourceVersion === "string" ? { resourceVersion } : {}) },
    },
  };
}

/**
 * Whether a report read whole carries, from Bylaw alone, the annotations Bylaw would write with it:
 * one that does not (written by an earlier Bylaw, by Kyverno, or touched by someone) is written once
 * more, so the reports informer can tell its content from its metadata from then on.
 */
function annotatedAs(existing: JsonObject, digest: string): boolean {
  const meta = (existing["metadata"] ?? {}) as JsonObject;
  return writtenContent(meta)?.digest === digest && writtenByBylawAlone(meta);
}
