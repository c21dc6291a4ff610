/// <reference lib="dom" />
/** The overview, policy and resource pages, drawn from the rows the route and filters keep. */
import { countBy, RESULTS, type ReportRow } from "../report-rows.js";
import type { PolicyAnswer } from "../policy-details.js";
import type { ReportsAnswer } from "../report-sources.js";
import { formatFragment, visibleRows, type Filters, type ViewState } from "../view-state.js";
import { el, link } from "./dom.js";
import { timeBuckets } from "../time-buckets.js";

const NO_FILTERS: Filters = { status: "", namespace: "", severity: "", q: "" };

/** The overview filtered to one namespace (all of them for cluster-scoped resources' "(cluster)"). */
function namespaceHref(filters: Filters): (namespace: string) => string {
  return (namespace) =>
    formatFragment({
      route: { page: "overview" },
      filters: { ...filters, namespace: namespace === "(cluster)" ? "" : namespace },
    });
}

function policyHref(policy: string): string {
  return formatFragment({ route: { page: "policy", policy }, filters: NO_FILTERS });
}

function resourceHref(row: Pick<ReportRow, "namespace" | "kind" | "name">): string {
  return formatFragment({
    route: { page: "resource", namespace: row.namespace, kind: row.kind, name: row.name },
    filters: NO_FILTERS,
  });
}

type ReadPolicy = Extract<PolicyAnswer, { ok: true }>;

/** The policy page's panel: its status and text, once read with the viewer's token. */
export type PolicyPanel =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly message: string }
  | { readonly state: "read"; readonly policies: ReadPolicy["policies"]; readonly kinds: ReadPolicy["kinds"] };

/** A result's "why" panel (/api/explain), by the row's `whyKey`. */
export type WhyPanel =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly message: string }
  | { readonly state: "read"; readonly text: string; readonly notes: readonly string[] };

/** The rows' why panels, and what a click on a row's "why" does. */
interface Whys {
  readonly panels: ReadonlyMap<string, WhyPanel>;
  readonly toggle: (row: ReportRow) => void;
}

/** The key of a row's why panel: its policy, rule and resource. */
export function whyKey(r: ReportRow): string {
  return JSON.stringify([r.policy, r.rule, r.apiVersion, r.kind, r.namespace, r.name]);
}

interface PageInput {
  readonly answer: ReportsAnswer;
  readonly state: ViewState;
  readonly onFilters: (f: Filters, typing: boolean) => void;
  /** On a policy page: its status and text. */
  readonly policy: PolicyPanel | undefined;
  readonly whys: Whys;
}

/** The page for `state`: a heading, the filter bar, and what the route shows. */
export function drawPage({ answer, state, onFilters, policy, whys }: PageInput): HTMLElement {
  const rows = visibleRows(answer.rows, state);
  const r = state.route;
  const title =
    r.page === "policy"
      ? `Policy ${r.policy}`
      : r.page === "resource"
        ? `${r.kind} ${r.namespace === "" ? "" : `${r.namespace}/`}${r.name}`
        : "Policy reports";
  const page = el(
    "section",
    { "data-page": r.page },
    el(
      "nav",
      {},
      link(formatFragment({ route: { page: "overview" }, filters: NO_FILTERS }), "Overview"),
      " · ",
      link("/playground", "Playground", { class: "playground-link" }),
    ),
    el("h1", {}, title),
    sourceNotes(answer),
    filterBar(answer.rows, state.filters, onFilters),
    totals(rows),
  );
  if (r.page === "overview") {
    page.append(
      topFailing("Top failing policies", rows, (x) => x.policy, policyHref),
      topFailing("Top failing namespaces", rows, (x) => x.namespace || "(cluster)", namespaceHref(state.filters)),
      overTime(rows),
      groupTable(rows, { heading: "By namespace", name: "namespace", key: (x) => x.namespace || "(cluster)" }),
      groupTable(rows, { heading: "By policy", name: "policy", key: (x) => x.policy, href: policyHref }),
      groupTable(rows, { heading: "By severity", name: "severity", key: (x) => x.severity || "(none)" }),
      groupTable(rows, { heading: "By category", name: "category", key: (x) => x.category || "(none)" }),
    );
  } else if (r.page === "policy") {
    page.append(
      groupTable(rows, { heading: "Rules", name: "rule", key: (x) => x.rule }),
      resultsTable(rows, true, whys),
      policyPanel(policy ?? { state: "loading" }),
    );
  } else {
    page.append(resultsTable(rows, false, whys));
  }
  return page;
}

/** The policy's status conditions and its text, or why they could not be read. */
function policyPanel(panel: PolicyPanel): HTMLElement {
  const section = el("section", { class: "policy-text", "data-state": panel.state }, el("h2", {}, "Policy"));
  if (panel.state === "loading") section.append(el("p", {}, "Reading the policy…"));
  else if (panel.state === "failed")
    section.append(el("p", { class: "problem" }, `Could not read the policy: ${panel.message}`));
  else {
    if (panel.policies.length === 0) section.append(el("p", { class: "problem" }, "No policy of that name was found."));
    for (const p of panel.policies) {
      const body = el("tbody");
      for (const c of p.conditions)
        body.append(
          el(
            "tr",
            { class: "condition", "data-type": c.type, "data-status": c.status },
            el("th", {}, c.type),
            el("td", {}, c.status),
            el("td", {}, c.reason),
            el("td", {}, c.message),
            el("td", {}, c.lastTransitionTime),
          ),
        );
      section.append(
        el("h3", {}, `${p.kind} ${p.namespace === "" ? "" : `${p.namespace}/`}${p.name}`),
        p.conditions.length === 0
          ? el("p", {}, "No status conditions.")
          : el(
              "table",
              { class: "conditions" },
              el(
                "thead",
                {},
                el("tr", {}, ...["condition", "status", "reason", "message", "since"].map((h) => el("th", {}, h))),
              ),
              body,
            ),
        el("pre", { class: "yaml" }, p.yaml),
      );
    }
    // Kinds the viewer may not read are named: the policy may be one of them.
    const unread = panel.kinds.filter((k) => k.state === "forbidden" || k.state === "failed");
    if (unread.length > 0)
      section.append(
        el(
          "p",
          { class: "sources" },
          `Not read (${unread.map((k) => `${k.kind}: ${k.state === "forbidden" ? "you may not get them" : k.message}`).join("; ")}).`,
        ),
      );
  }
  return section;
}

/** Which report kinds could not be read, and why: never shown as "no results". */
function sourceNotes(answer: ReportsAnswer): HTMLElement {
  const notes = el("ul", { class: "sources" });
  for (const s of answer.sources) {
    if (s.state === "read" && s.namespaces !== undefined) {
      notes.append(el("li", { "data-state": "namespaces" }, `${s.kind}s ${s.message}`));
      continue;
    }
    if (s.state === "read") continue;
    const why = s.state === "forbidden" ? "you may not list them" : s.state === "missing" ? "not installed" : s.message;
    notes.append(el("li", { "data-state": s.state }, `${s.kind}s not read: ${why}`));
  }
  return notes;
}

function filterBar(
  all: readonly ReportRow[],
  f: Filters,
  onFilters: (f: Filters, typing: boolean) => void,
): HTMLElement {
  const select = (name: keyof Filters, label: string, values: readonly string[]): HTMLElement => {
    const s = el("select", { name, "aria-label": label }, el("option", { value: "" }, `any ${label}`));
    for (const v of values) {
      const o = el("option", { value: v }, v);
      if (v === f[name]) o.selected = true;
      s.append(o);
    }
    s.addEventListener("change", () => onFilters({ ...f, [name]: s.value }, false));
    return s;
  };
  const distinct = (key: (r: ReportRow) => string): string[] =>
    [...new Set(all.map(key).filter((v) => v !== ""))].sort();
  const search = el("input", { type: "search", name: "q", placeholder: "search", "aria-label": "search" });
  search.value = f.q;
  search.addEventListener("input", () => onFilters({ ...f, q: search.value }, true));
  return el(
    "form",
    { class: "filters", role: "search" },
    select("status", "status", RESULTS),
    select(
      "namespace",
      "namespace",
      distinct((r) => r.namespace),
    ),
    select(
      "severity",
      "severity",
      distinct((r) => r.severity),
    ),
    search,
  );
}

function totals(rows: readonly ReportRow[]): HTMLElement {
  const counts = countBy(rows, () => "all")[0]?.counts ?? {};
  return el(
    "div",
    { class: "totals" },
    ...RESULTS.map((res) =>
      el("div", { class: `total ${res}`, "data-result": res }, el("b", {}, String(counts[res] ?? 0)), ` ${res}`),
    ),
  );
}

function countCells(counts: Readonly<Record<string, number>>): HTMLElement[] {
  return RESULTS.map((res) => el("td", { class: res }, String(counts[res] ?? 0)));
}

interface Group {
  readonly heading: string;
  readonly name: string;
  readonly key: (r: ReportRow) => string;
  /** Where a group's name links to, if anywhere. */
  readonly href?: (k: string) => string;
}

function groupTable(rows: readonly ReportRow[], { heading, name, key, href }: Group): HTMLElement {
  const body = el("tbody");
  for (const g of countBy(rows, key))
    body.append(el("tr", {}, el("th", {}, href ? link(href(g.key), g.key) : g.key), ...countCells(g.counts)));
  return el(
    "section",
    { class: "group", "data-group": name },
    el("h2", {}, heading),
    el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, name), ...RESULTS.map((r) => el("th", {}, r)))), body),
  );
}

/** A bar per policy (or namespace) with the most failures and errors. */
function topFailing(
  heading: string,
  rows: readonly ReportRow[],
  key: (r: ReportRow) => string,
  href: (k: string) => string,
): HTMLElement {
  const top = countBy(
    rows.filter((r) => r.result === "fail" || r.result === "error"),
    key,
  ).slice(0, 10);
  const most = Math.max(1, ...top.map((g) => (g.counts["fail"] ?? 0) + (g.counts["error"] ?? 0)));
  const list = el("ol", { class: "bars" });
  for (const g of top) {
    const n = (g.counts["fail"] ?? 0) + (g.counts["error"] ?? 0);
    const bar = el("span", { class: "bar" });
    bar.style.width = `${Math.round((100 * n) / most)}%`;
    list.append(el("li", {}, link(href(g.key), g.key), bar, ` ${n}`));
  }
  return el("section", { class: "top" }, el("h2", {}, heading), top.length === 0 ? el("p", {}, "No failures.") : list);
}

/** Results over time (time-buckets.ts): a column per span, failing on top of passing on top of the rest. */
function overTime(rows: readonly ReportRow[]): HTMLElement {
  const t = timeBuckets(rows);
  const untimed = t.untimed > 0 ? ` ${t.untimed} results carry no time.` : "";
  if (t.buckets.length === 0)
    return el(
      "section",
      { class: "over-time" },
      el("h2", {}, "Results over time"),
      el("p", {}, `No result says when it was made.${untimed}`),
    );
  const most = Math.max(1, ...t.buckets.map((b) => b.failing + b.passing + b.other));
  const label = (start: number): string => {
    const iso = new Date(start * 1000).toISOString();
    return t.span >= 86_400 ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
  };
  const list = el("ol", { class: "timeline" });
  t.buckets.forEach((b, i) => {
    const column = el("li", {
      "data-start": String(b.start),
      "data-failing": String(b.failing),
      "data-passing": String(b.passing),
      "data-other": String(b.other),
      title: `${label(b.start)} UTC: ${b.failing} failing, ${b.passing} passing, ${b.other} other`,
    });
    for (const [cls, n] of [
      ["t-other", b.other],
      ["t-pass", b.passing],
      ["t-fail", b.failing],
    ] as const) {
      const part = el("span", { class: cls });
      part.style.height = `${(100 * n) / most}%`;
      column.append(part);
    }
    if (i === 0 || i === t.buckets.length - 1) column.append(el("span", { class: "t-label" }, label(b.start)));
    list.append(column);
  });
  return el(
    "section",
    { class: "over-time" },
    el("h2", {}, "Results over time"),
    el(
      "p",
      { class: "note" },
      `When each result in the reports was last made (UTC), per ${spanText(t.span)}: failing red, passing green.${untimed}`,
    ),
    list,
  );
}

function spanText(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? "day" : `${seconds / 86_400} days`;
  if (seconds % 3600 === 0) return seconds === 3600 ? "hour" : `${seconds / 3600} hours`;
  return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
}

function resultsTable(rows: readonly ReportRow[], withResource: boolean, whys: Whys): HTMLElement {
  const body = el("tbody");
  const head = ["policy", "rule", "result", "severity", ...(withResource ? ["resource"] : []), "message", ""];
  for (const r of rows) {
    const why = el("button", { type: "button", class: "why", "aria-label": `why ${r.result}` }, "why?");
    why.addEventListener("click", () => whys.toggle(r));
    body.append(
      el(
        "tr",
        { class: `row ${r.result}`, "data-result": r.result },
        el("td", {}, link(policyHref(r.policy), r.policy)),
        el("td", {}, r.rule),
        el("td", { class: r.result }, r.result),
        el("td", {}, r.severity),
        withResource &&
          el(
            "td",
            {},
            link(resourceHref(r), `${r.kind} ${r.namespace === "" ? "" : `${r.namespace}/`}${r.name}`, {
              class: "resource",
            }),
          ),
        el("td", { class: "message" }, r.message),
        el("td", {}, why),
      ),
    );
    const panel = whys.panels.get(whyKey(r));
    if (panel !== undefined)
      body.append(el("tr", { class: "why-panel" }, el("td", { colspan: String(head.length) }, whyPanel(panel))));
  }
  return el(
    "section",
    { class: "results" },
    el("h2", {}, `Results (${rows.length})`),
    el("table", {}, el("thead", {}, el("tr", {}, ...head.map((h) => el("th", {}, h)))), body),
  );
}

/** How the result came about (as `bylaw apply --explain` prints it), or why it could not be worked out. */
function whyPanel(panel: WhyPanel): HTMLElement {
  const box = el("div", { class: "why-box", "data-state": panel.state });
  if (panel.state === "loading") box.append(el("p", {}, "Working out why…"));
  else if (panel.state === "failed") box.append(el("p", { class: "problem" }, panel.message));
  else
    box.append(el("pre", { class: "why-text" }, panel.text), ...panel.notes.map((n) => el("p", { class: "note" }, n)));
  return box;
}
