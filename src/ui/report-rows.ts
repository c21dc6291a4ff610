/**
 * The report UI's rows: every result of PolicyReports, ClusterPolicyReports and openreports.io
 * Reports and ClusterReports, one row per result and resource, whoever wrote them (Bylaw, Kyverno,
 * another scanner). Pure: no Node, no DOM; the server and the page share it.
 */

export interface ReportRow {
  readonly policy: string;
  readonly rule: string;
  /** pass, fail, warn, error or skip (as written; an unknown word is kept). */
  readonly result: string;
  readonly severity: string;
  readonly category: string;
  readonly message: string;
  readonly source: string;
  /** "" for a cluster-scoped resource. */
  readonly namespace: string;
  readonly kind: string;
  readonly name: string;
  readonly apiVersion: string;
  /** The report holding the result: `Kind namespace/name`. */
  readonly report: string;
  /** When the result was made (its `timestamp.seconds`), in seconds since the epoch; 0 when the report does not say. */
  readonly time: number;
}

/** The statuses of PolicyReport results, in the order the UI shows them. */
export const RESULTS = ["pass", "fail", "warn", "error", "skip"] as const;

type Obj = Readonly<Record<string, unknown>>;

/** A string field's value; "" for anything else. */
export const str = (v: unknown): string => (typeof v === "string" ? v : "");
/** An object field's value; {} for anything else. */
export const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);
/** A timestamp's seconds (int64: a number, or a string in some writers' JSON); 0 for anything else. */
const seconds = (v: unknown): number => {
  const n = typeof v === "number" ? v : typeof v === "string" && /^\d{1,12}$/.test(v) ? Number(v) : 0;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** The rows of one report object of `kind` (its list's kind without "List"). */
export function rowsOfReport(kind: string, report: unknown): ReportRow[] {
  const r = obj(report);
  const meta = obj(r["metadata"]);
  const reportNamespace = str(meta["namespace"]);
  const scope = obj(r["scope"]);
  const reportName = `${kind} ${reportNamespace === "" ? "" : `${reportNamespace}/`}${str(meta["name"])}`;
  const rows: ReportRow[] = [];
  for (const item of arr(r["results"])) {
    const result = obj(item);
    const resources = arr(result["resources"]).map(obj);
    const targets = resources.length > 0 ? resources : [scope];
    for (const target of targets) {
      rows.push({
        policy: str(result["policy"]),
        rule: str(result["rule"]),
        result: str(result["result"]),
        severity: str(result["severity"]),
        category: str(result["category"]),
        message: str(result["message"]),
        source: str(result["source"]),
        namespace: str(target["namespace"]) || reportNamespace,
        kind: str(target["kind"]),
        name: str(target["name"]),
        apiVersion: str(target["apiVersion"]),
        report: reportName,
        time: seconds(obj(result["timestamp"])["seconds"]),
      });
    }
  }
  return rows;
}

/** Counts of each result, by the value `key` gives a row; sorted by failures, then name. */
export function countBy(
  rows: readonly ReportRow[],
  key: (row: ReportRow) => string,
): { readonly key: string; readonly counts: Readonly<Record<string, number>> }[] {
  const groups = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const k = key(row);
    let counts = groups.get(k);
    if (counts === undefined) {
      counts = {};
      groups.set(k, counts);
    }
    counts[row.result] = (counts[row.result] ?? 0) + 1;
  }
  return [...groups]
    .map(([k, counts]) => ({ key: k, counts }))
    .sort(
      (a, b) =>
        (b.counts["fail"] ?? 0) + (b.counts["error"] ?? 0) - ((a.counts["fail"] ?? 0) + (a.counts["error"] ?? 0)) ||
        a.key.localeCompare(b.key),
    );
}
