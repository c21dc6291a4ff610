/**
 * What the report UI shows, kept in the URL's fragment so a reload or a shared link shows the same
 * view: `#/` (overview), `#/policy/NAME`, `#/resource/NAMESPACE/KIND/NAME` (NAMESPACE `-` for a
 * cluster-scoped resource), then `?status=fail&namespace=…&severity=…&q=…`. Pure: no DOM.
 */
import type { ReportRow } from "./report-rows.js";

type Route =
  | { readonly page: "overview" }
  | { readonly page: "policy"; readonly policy: string }
  | { readonly page: "resource"; readonly namespace: string; readonly kind: string; readonly name: string };

export interface Filters {
  readonly status: string;
  readonly namespace: string;
  readonly severity: string;
  /** Text searched in the policy, rule, resource name and message. */
  readonly q: string;
}

export interface ViewState {
  readonly route: Route;
  readonly filters: Filters;
}

const FILTER_KEYS = ["status", "namespace", "severity", "q"] as const;

export function parseFragment(fragment: string): ViewState {
  const text = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  const mark = text.indexOf("?");
  const path = mark === -1 ? text : text.slice(0, mark);
  const params = new URLSearchParams(mark === -1 ? "" : text.slice(mark + 1));
  const parts = path
    .split("/")
    .filter((p) => p !== "")
    .map((p) => safeDecode(p));
  const filters: Filters = {
    status: params.get("status") ?? "",
    namespace: params.get("namespace") ?? "",
    severity: params.get("severity") ?? "",
    q: params.get("q") ?? "",
  };
  if (parts[0] === "policy" && parts.length === 2)
    return { route: { page: "policy", policy: parts[1] ?? "" }, filters };
  if (parts[0] === "resource" && parts.length === 4) {
    const [, ns = "", kind = "", name = ""] = parts;
    return { route: { page: "resource", namespace: ns === "-" ? "" : ns, kind, name }, filters };
  }
  return { route: { page: "overview" }, filters };
}

export function formatFragment(state: ViewState): string {
  const r = state.route;
  const path =
    r.page === "policy"
      ? `/policy/${encodeURIComponent(r.policy)}`
      : r.page === "resource"
        ? `/resource/${encodeURIComponent(r.namespace === "" ? "-" : r.namespace)}/${encodeURIComponent(r.kind)}/${encodeURIComponent(r.name)}`
        : "/";
  const params = new URLSearchParams();
  for (const k of FILTER_KEYS) if (state.filters[k] !== "") params.set(k, state.filters[k]);
  const query = params.toString();
  return `#${path}${query === "" ? "" : `?${query}`}`;
}

/** The rows the route and the filters keep. */
export function visibleRows(rows: readonly ReportRow[], state: ViewState): ReportRow[] {
  const r = state.route;
  const f = state.filters;
  const q = f.q.toLowerCase();
  return rows.filter(
    (row) =>
      (r.page !== "policy" || row.policy === r.policy) &&
      (r.page !== "resource" || (row.namespace === r.namespace && row.kind === r.kind && row.name === r.name)) &&
      (f.status === "" || row.result === f.status) &&
      (f.namespace === "" || row.namespace === f.namespace) &&
      (f.severity === "" || row.severity === f.severity) &&
      (q === "" || [row.policy, row.rule, row.name, row.message].some((s) => s.toLowerCase().includes(q))),
  );
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
