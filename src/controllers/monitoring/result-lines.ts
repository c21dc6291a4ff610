/**
 * Report results as the Loki lines Policy Reporter's Loki target writes (monitoring.md §4.2), pure:
 * labels `status`, `policy`, `createdBy="policy-reporter"`, then `rule`, `category`, `severity`,
 * `source` when set, `apiVersion`, `kind`, `name` when the resource has an apiVersion, and
 * `namespace` when it has one; the line `[SEVERITY] message`. A result's properties go to the
 * entry's structured metadata (keys with `.` as `_`, brackets removed), not to labels as Policy
 * Reporter does: a report with a few properties would pass Loki's 15 labels and be refused.
 *
 * trivy-operator's reports are first read as results the way trivy-operator-polr-adapter maps them
 * to PolicyReports (source `Trivy Vulnerability`: one result per vulnerability, policy its ID,
 * category `Vulnerability Scan`; source `Trivy ConfigAudit`: one per check, policy its title, rule
 * its ID), so one Loki query finds every producer's results.
 *
 * Each line has an id (its report, resource, policy, rule, status, severity and message) so a
 * result is sent once: when it is new, not again on every resync (result-sender.ts).
 */
import { createHash } from "node:crypto";
import { isObject, type JsonObject, type JsonValue } from "../../engine/index.js";
import { nanosOf, type LokiEntry } from "../../platform/loki/index.js";
import type { ResultFilter } from "./result-filter.js";
import type { SourceFamily } from "./sources.js";

interface ResultLine {
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly entry: LokiEntry;
}

interface LineOptions {
  /** Labels added to every stream (Policy Reporter's customFields). */
  readonly extraLabels: Readonly<Record<string, string>>;
  /** Now, in Unix milliseconds: the time of a result with none (or one Loki would refuse as too old). */
  readonly nowMs: number;
  /** Which results are sent (Policy Reporter's target filters); none: every result. */
  readonly filter?: ResultFilter | undefined;
}

/** A result as Policy Reporter reads one, whichever producer wrote it. */
interface Result {
  readonly policy: string;
  readonly rule: string;
  readonly status: string;
  readonly severity: string;
  readonly category: string;
  readonly source: string;
  readonly message: string;
  readonly resource: { apiVersion: string; kind: string; name: string; namespace: string; uid: string };
  readonly properties: Readonly<Record<string, string>>;
  /** Unix milliseconds, when the result says. */
  readonly timeMs: number | undefined;
}

/** Loki refuses lines older than a week; a result older than six days is sent with the time it is sent. */
const OLDEST_MS = 6 * 24 * 3600 * 1000;

function text(value: JsonValue | undefined): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : "";
}

function field(o: JsonValue | undefined, key: string): JsonValue | undefined {
  return isObject(o) ? o[key] : undefined;
}

function resourceFrom(ref: JsonValue | undefined, namespace: string): Result["resource"] {
  return {
    apiVersion: text(field(ref, "apiVersion")),
    kind: text(field(ref, "kind")),
    name: text(field(ref, "name")),
    namespace: text(field(ref, "namespace")) || namespace,
    uid: text(field(ref, "uid")),
  };
}

function stringMap(o: JsonValue | undefined): Record<string, string> {
  if (!isObject(o)) return {};
  return Object.fromEntries(Object.entries(o).map(([k, v]): [string, string] => [k, text(v)]));
}

function timeOf(ts: JsonValue | undefined): number | undefined {
  const seconds = field(ts, "seconds");
  if (typeof seconds !== "number") return undefined;
  const nanos = field(ts, "nanos");
  return seconds * 1000 + (typeof nanos === "number" ? Math.trunc(nanos / 1e6) : 0);
}

function policyResults(report: JsonObject): Result[] {
  const namespace = text(field(report["metadata"], "namespace"));
  const results = report["results"];
  if (!Array.isArray(results)) return [];
  return results.filter(isObject).map((r) => {
    const resources = r["resources"];
    const ref = Array.isArray(resources) && resources.length > 0 ? resources[0] : report["scope"];
    return {
      policy: text(r["policy"]),
      rule: text(r["rule"]),
      status: text(r["result"]),
      severity: text(r["severity"]),
      category: text(r["category"]),
      source: text(r["source"]),
      message: text(r["message"]),
      resource: resourceFrom(ref, namespace),
      properties: stringMap(r["properties"]),
      timeMs: timeOf(r["timestamp"]),
    };
  });
}

/** The resource a trivy report is about: its one owner, else its `trivy-operator.resource.*` labels. */
function trivyResource(report: JsonObject): Result["resource"] {
  const metadata = report["metadata"];
  const namespace = text(field(metadata, "namespace"));
  const owners = field(metadata, "ownerReferences");
  if (Array.isArray(owners) && owners.length === 1) return resourceFrom(owners[0], namespace);
  const labels = field(metadata, "labels");
  return {
    apiVersion: "",
    kind: text(field(labels, "trivy-operator.resource.kind")),
    name: text(field(labels, "trivy-operator.resource.name")),
    namespace: text(field(labels, "trivy-operator.resource.namespace")),
    uid: "",
  };
}

function creationMs(report: JsonObject): number | undefined {
  const t = Date.parse(text(field(report["metadata"], "creationTimestamp")));
  return Number.isNaN(t) ? undefined : t;
}

/** trivy's severity as a PolicyReport's (the adapter's table): UNKNOWN is none, anything else unknown is info. */
function trivySeverity(severity: string, audit: boolean): string {
  const s = severity.toUpperCase();
  if (s === "UNKNOWN" || (audit && s === "NONE")) return "";
  if (s === "LOW" || s === "MEDIUM" || s === "HIGH") return s.toLowerCase();
  if (s === "CRITICAL") return audit ? "high" : "critical";
  return audit ? "high" : "info";
}

function vulnerabilityStatus(severity: string): string {
  const s = severity.toUpperCase();
  return s === "UNKNOWN" ? "skip" : s === "LOW" || s === "MEDIUM" ? "warn" : "fail";
}

function vulnerabilityResults(report: JsonObject): Result[] {
  const body = report["report"];
  const vulns = field(body, "vulnerabilities");
  if (!Array.isArray(vulns)) return [];
  const resource = trivyResource(report);
  const base = {
    "artifact.repository": text(field(field(body, "artifact"), "repository")),
    "artifact.tag": text(field(field(body, "artifact"), "tag")),
    "registry.server": text(field(field(body, "registry"), "server")),
  };
  return vulns.filter(isObject).map((v) => ({
    policy: text(v["vulnerabilityID"]),
    rule: "",
    status: vulnerabilityStatus(text(v["severity"])),
    severity: trivySeverity(text(v["severity"]), false),
    category: "Vulnerability Scan",
    source: "Trivy Vulnerability",
    message: text(v["title"]),
    resource,
    properties: {
      ...base,
      score: text(v["score"]) || "0",
      resource: text(v["resource"]),
      ...(text(v["installedVersion"]) ? { installedVersion: text(v["installedVersion"]) } : {}),
      ...(text(v["fixedVersion"]) ? { fixedVersion: text(v["fixedVersion"]) } : {}),
      ...(text(v["primaryLink"]) ? { primaryLink: text(v["primaryLink"]) } : {}),
    },
    timeMs: creationMs(report),
  }));
}

function auditResults(report: JsonObject): Result[] {
  const body = report["report"];
  const checks = [field(body, "checks"), field(body, "podChecks")].flatMap((c) => (Array.isArray(c) ? c : []));
  const resource = trivyResource(report);
  return checks.filter(isObject).map((c) => {
    const messages = Array.isArray(c["messages"]) ? c["messages"].map(text) : [];
    return {
      policy: text(c["title"]),
      rule: text(c["checkID"]),
      status: c["success"] === true ? "pass" : "fail",
      severity: trivySeverity(text(c["severity"]), true),
      category: text(c["category"]),
      source: "Trivy ConfigAudit",
      message: text(c["description"]),
      resource,
      properties: Object.fromEntries(messages.map((m, i): [string, string] => [`${i + 1}. message`, m])),
      timeMs: creationMs(report),
    };
  });
}

function resultsOf(report: JsonObject, family: SourceFamily): Result[] {
  if (family === "trivy-vulnerabilities") return vulnerabilityResults(report);
  if (family === "trivy-configaudits") return auditResults(report);
  return policyResults(report);
}

function labelsOf(r: Result, extra: Readonly<Record<string, string>>): Record<string, string> {
  const labels: Record<string, string> = { status: r.status, policy: r.policy, createdBy: "policy-reporter" };
  if (r.rule !== "") labels["rule"] = r.rule;
  if (r.category !== "") labels["category"] = r.category;
  if (r.severity !== "") labels["severity"] = r.severity;
  if (r.source !== "") labels["source"] = r.source;
  if (r.resource.apiVersion !== "") {
    labels["apiVersion"] = r.resource.apiVersion;
    labels["kind"] = r.resource.kind;
    labels["name"] = r.resource.name;
  }
  if (r.resource.namespace !== "") labels["namespace"] = r.resource.namespace;
  return { ...labels, ...extra };
}

/** Property keys as Policy Reporter turns them into label names: `.` as `_`, brackets removed. */
function metadataOf(properties: Readonly<Record<string, string>>): Record<string, string> | undefined {
  const entries = Object.entries(properties).filter(([, v]) => v !== "");
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([k, v]): [string, string] => [k.replaceAll(".", "_").replace(/[[\]]/g, ""), v]),
  );
}

function idOf(reportKey: string, r: Result): string {
  const res = r.resource;
  return createHash("sha1")
    .update(
      JSON.stringify([
        reportKey,
        res.uid,
        res.kind,
        res.namespace,
        res.name,
        r.policy,
        r.rule,
        r.status,
        r.severity,
        r.message,
      ]),
    )
    .digest("base64url")
    .slice(0, 20);
}

/** One report's results as Loki lines; `reportKey` names the report (its kind, namespace and name). */
export function resultLines(report: JsonObject, family: SourceFamily, reportKey: string, o: LineOptions): ResultLine[] {
  const filter = o.filter;
  const labels = filter !== undefined ? stringMap(field(report["metadata"], "labels")) : {};
  const results = resultsOf(report, family);
  const kept =
    filter !== undefined
      ? results.filter((r) =>
          filter(
            {
              namespace: r.resource.namespace,
              policy: r.policy,
              source: r.source,
              severity: r.severity,
              status: r.status,
            },
            labels,
          ),
        )
      : results;
  return kept.map((r) => {
    const timeMs = r.timeMs !== undefined && r.timeMs > o.nowMs - OLDEST_MS && r.timeMs <= o.nowMs ? r.timeMs : o.nowMs;
    const metadata = metadataOf(r.properties);
    return {
      id: idOf(reportKey, r),
      labels: labelsOf(r, o.extraLabels),
      entry: {
        timestampNs: nanosOf(timeMs),
        line: `[${r.severity.toUpperCase()}] ${r.message}`,
        ...(metadata !== undefined ? { metadata } : {}),
      },
    };
  });
}
