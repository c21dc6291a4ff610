/**
 * What `/api/reports` answers: the rows of every report kind the viewer may list, read with the
 * viewer's token (src/kube/viewer-reads.ts), and for each kind whether it was read, forbidden,
 * not installed or failed, so the page never shows "no results" for what it could not read.
 */
import type { ViewerReads } from "../kube/viewer-reads.js";
import { rowsOfReport, type ReportRow } from "./report-rows.js";

interface ReportKind {
  readonly kind: string;
  /** `/apis/GROUP/VERSION` */
  readonly api: string;
  readonly resource: string;
  readonly namespaced: boolean;
}

const REPORT_KINDS: readonly ReportKind[] = [
  { kind: "PolicyReport", api: "/apis/wgpolicyk8s.io/v1alpha2", resource: "policyreports", namespaced: true },
  {
    kind: "ClusterPolicyReport",
    api: "/apis/wgpolicyk8s.io/v1alpha2",
    resource: "clusterpolicyreports",
    namespaced: false,
  },
  { kind: "Report", api: "/apis/openreports.io/v1alpha1", resource: "reports", namespaced: true },
  { kind: "ClusterReport", api: "/apis/openreports.io/v1alpha1", resource: "clusterreports", namespaced: false },
];

/** At most this many namespaces are read one by one for a viewer who may not list a kind cluster-wide. */
const MAX_NAMESPACES = 50;

/** A namespace's name (DNS-1123 label); nothing else goes into a path. */
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

type ReadState = "read" | "unauthorized" | "forbidden" | "missing" | "failed";

interface SourceState {
  readonly kind: string;
  /**
   * read, unauthorized (the token was refused), forbidden (the viewer may not list it), missing (not
   * installed) or failed. A namespaced kind the viewer may not list cluster-wide but read in some of
   * the namespaces asked for is `read`, with `namespaces` naming where.
   */
  readonly state: ReadState;
  readonly message: string;
  /** Set when the kind was read namespace by namespace: the state in each. */
  readonly namespaces?: Readonly<Record<string, ReadState>>;
}

/** What the viewer asked for beyond the cluster-wide lists. */
interface ReadOptions {
  /** Namespaces to read one by one where a cluster-wide list is forbidden (checked names, at most MAX_NAMESPACES). */
  readonly namespaces: readonly string[];
}

/** The namespaces of a `?namespaces=a,b` parameter, or what is wrong with it. */
export function namespacesParam(
  value: string | null,
): { ok: true; namespaces: string[] } | { ok: false; error: string } {
  const namespaces = [...new Set((value ?? "").split(",").map((n) => n.trim()))].filter((n) => n !== "");
  const bad = namespaces.find((n) => !NAMESPACE.test(n));
  if (bad !== undefined) return { ok: false, error: `not a namespace name: ${JSON.stringify(bad)}` };
  if (namespaces.length > MAX_NAMESPACES)
    return { ok: false, error: `at most ${MAX_NAMESPACES} namespaces (got ${namespaces.length})` };
  return { ok: true, namespaces };
}

export interface ReportsAnswer {
  readonly rows: readonly ReportRow[];
  readonly sources: readonly SourceState[];
  /** Changes when any list's resourceVersion does: the page redraws only then. */
  readonly version: string;
}

export async function readReports(
  reads: ViewerReads,
  token: string,
  options: ReadOptions = { namespaces: [] },
): Promise<ReportsAnswer> {
  const kinds = await Promise.all(REPORT_KINDS.map((k) => readKind(reads, token, k, options.namespaces)));
  return {
    rows: kinds.flatMap((k) => k.rows),
    sources: kinds.map((k) => k.source),
    version: kinds.map((k) => `${k.source.kind}:${k.version}`).join(","),
  };
}

interface KindRead {
  readonly rows: ReportRow[];
  readonly source: SourceState;
  readonly version: string;
}

/** One kind: listed cluster-wide, or, where that is forbidden, in each namespace asked for. */
async function readKind(
  reads: ViewerReads,
  token: string,
  k: ReportKind,
  namespaces: readonly string[],
): Promise<KindRead> {
  const whole = await readList(reads, token, k, `${k.api}/${k.resource}`);
  if (whole.state !== "forbidden" || !k.namespaced || namespaces.length === 0)
    return {
      rows: whole.rows,
      source: { kind: k.kind, state: whole.state, message: whole.message },
      version: whole.version,
    };
  const each = await Promise.all(
    namespaces.map((ns) => readList(reads, token, k, `${k.api}/namespaces/${ns}/${k.resource}`)),
  );
  const states = Object.fromEntries(namespaces.map((ns, i) => [ns, each[i]?.state ?? "failed"]));
  const read = namespaces.filter((ns) => states[ns] === "read");
  const refused = each.find((e) => e.state === "unauthorized");
  const state: ReadState = refused !== undefined ? "unauthorized" : read.length > 0 ? "read" : "forbidden";
  const message =
    read.length > 0
      ? `listed in ${read.join(", ")} only: you may not list them cluster-wide`
      : `you may not list them cluster-wide nor in ${namespaces.join(", ")}`;
  return {
    rows: each.flatMap((e) => e.rows),
    source: { kind: k.kind, state, message, namespaces: states },
    version: namespaces.map((ns, i) => `${ns}=${each[i]?.version ?? ""}`).join(";"),
  };
}

interface ListRead {
  readonly state: ReadState;
  readonly message: string;
  readonly rows: ReportRow[];
  readonly version: string;
}

async function readList(reads: ViewerReads, token: string, k: ReportKind, path: string): Promise<ListRead> {
  const answer = await reads.get(token, path);
  if (!answer.ok) {
    const state: ReadState =
      answer.status === 401
        ? "unauthorized"
        : answer.status === 403
          ? "forbidden"
          : answer.status === 404
            ? "missing"
            : "failed";
    return { state, message: answer.message, rows: [], version: state };
  }
  const list = answer.body as { metadata?: { resourceVersion?: unknown }; items?: unknown };
  const rows: ReportRow[] = [];
  for (const item of Array.isArray(list.items) ? list.items : []) rows.push(...rowsOfReport(k.kind, item));
  const version = list.metadata?.resourceVersion;
  return { state: "read", message: "", rows, version: typeof version === "string" ? version : "" };
}
