/**
 * What a per-resource report says, as the write decision compares it (reconcile.ts): its labels, owners, scope, summary and rows without their timestamps (which change on every scan),
 * nothing the server sets. The reports informer keeps only a digest of it (compact-report.ts), so
 * 10,000 reports do not hold 10,000 copies of their rows: the digest is the same whatever order the
 * keys came in (the API server writes a custom resource's keys sorted; Bylaw builds them in its own order).
 */
import { createHash } from "node:crypto";
import { stringify } from "safe-stable-stringify";
import type { JsonObject } from "../../engine/index.js";

/** A report's rows, as read. */
export function rowsOf(report: JsonObject): JsonObject[] {
  return Array.isArray(report["results"]) ? (report["results"] as JsonObject[]) : [];
}

/** The names of the policies with rows in a report, sorted, each once. */
export function rowPolicyNames(report: JsonObject): string[] {
  return [...new Set(rowsOf(report).map((row) => row["policy"]))].filter((p) => typeof p === "string").sort();
}

/**
 * What a report says, without what changes on every scan (the rows' timestamps) or what the server
 * sets. Not its kind: a report is only ever compared with the one of its own kind (one informer, one
 * read path per kind), and a listed report may come without it.
 */
function reportContent(report: JsonObject): JsonObject {
  const meta = (report["metadata"] ?? {}) as JsonObject;
  return {
    labels: meta["labels"] ?? null,
    owners: ((meta["ownerReferences"] ?? []) as JsonObject[]).map(({ apiVersion, kind, name, uid }) => ({
      apiVersion: apiVersion ?? null,
      kind: kind ?? null,
      name: name ?? null,
      uid: uid ?? null,
    })),
    scope: report["scope"] ?? null,
    summary: report["summary"] ?? null,
    results: rowsOf(report).map(({ timestamp: _timestamp, ...rest }) => rest),
  };
}

/** The digest of what a report says: equal for two reports exactly when their content is (up to key order). */
export function contentDigest(report: JsonObject): string {
  return createHash("sha256")
    .update(stringify(reportContent(report)) ?? "")
    .digest("base64");
}

/**
 * The digest of what a report Bylaw built says, its keys in the order Bylaw builds them: cheaper
 * than {@link contentDigest} (no key is sorted) and equal for two reports built alike, so it is only
 * ever compared with another of its kind — the digest written with a report (report-annotations.ts).
 */
export function builtDigest(report: JsonObject): string {
  return createHash("sha256")
    .update(JSON.stringify(reportContent(report)))
    .digest("base64");
}
