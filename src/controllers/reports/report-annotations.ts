/**
 * What Bylaw writes with each report so that the reports informer can watch reports' metadata only
 * (compact-report.ts): the digest of the report's content as Bylaw built it and the policies with
 * rows in it, as annotations. They say what the rows are only while Bylaw alone has written the
 * report; compact-report.ts checks that from the managedFields.
 */
import type { JsonObject } from "../../engine/index.js";
import { rowPolicyNames } from "./report-content.js";

const DIGEST = "reports.bylaw.dev/content-digest";
const ROW_POLICIES = "reports.bylaw.dev/row-policies";

/** The report with its content annotations (`digest`: report-content.ts's builtDigest of it). */
export function withContentAnnotations(report: JsonObject, digest: string): JsonObject {
  const meta = (report["metadata"] ?? {}) as JsonObject;
  const annotations = {
    ...((meta["annotations"] ?? {}) as JsonObject),
    [DIGEST]: digest,
    // Policy names are DNS names (a namespaced one `namespace/name`): never a comma.
    [ROW_POLICIES]: rowPolicyNames(report).join(","),
  };
  return { ...report, metadata: { ...meta, annotations } };
}

/** The content annotations Bylaw wrote with a report (its metadata), or undefined when it carries none. */
export function writtenContent(
  meta: JsonObject,
): { readonly digest: string; readonly policies: readonly string[] } | undefined {
  const annotations = meta["annotations"];
  if (typeof annotations !== "object" || annotations === null || Array.isArray(annotations)) return undefined;
  const digest = annotations[DIGEST];
  const policies = annotations[ROW_POLICIES];
  if (typeof digest !== "string" || digest === "" || typeof policies !== "string") return undefined;
  return { digest, policies: policies === "" ? [] : policies.split(",") };
}
