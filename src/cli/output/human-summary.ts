/**
 * The default `bylaw apply` output, for people: each resource with findings, then under it each
 * failing, erroring or warning rule (policy/rule, action, the PSS controls that failed, the message),
 * then the totals. Resources keep input order; a resource's findings are sorted by outcome, policy
 * and rule, so the output is the same from run to run.
 */
import type { RuleStatus } from "../../engine/index.js";
import { counted } from "./counted.js";
import { failedControls } from "./pss-controls.js";
import { displaySource } from "./source-path.js";
import { compareText, countResults, summaryLine, type ResultRow } from "./types.js";

interface HumanSummaryOptions {
  readonly policies: number;
  readonly resources: number;
  readonly exceptions?: number;
  /** Show passing and skipped rules too. */
  readonly detailed: boolean;
  /** Files are shown relative to this folder. */
  readonly cwd: string;
}

const ORDER: Record<RuleStatus, number> = { fail: 0, error: 1, warn: 2, pass: 3, skip: 4 };
const LABEL_WIDTH = 6;

export function renderHumanSummary(rows: readonly ResultRow[], options: HumanSummaryOptions): string {
  const shown = options.detailed
    ? rows
    : rows.filter((r) => r.result === "fail" || r.result === "error" || r.result === "warn");
  const lines: string[] = [];
  for (const group of groupByResource(shown)) {
    const first = group[0];
    if (first === undefined) continue;
    if (lines.length > 0) lines.push("");
    lines.push(`${first.resource}${where(first, options.cwd)}`);
    for (const row of [...group].sort(compareRows)) lines.push(...renderRow(row));
  }
  const counts = countResults(rows);
  const withFindings = new Set(
    rows.filter((r) => r.result === "fail" || r.result === "error" || r.result === "warn").map(groupKey),
  ).size;
  if (lines.length > 0) lines.push("");
  const exceptions = options.exceptions ? ` with ${counted(options.exceptions, "exception")}` : "";
  lines.push(
    `Applied ${counted(options.policies, "policy", "policies")} to ${counted(options.resources, "resource")}${exceptions}: ${withFindings === 0 ? "no findings" : `${counted(withFindings, "resource")} with findings`}.`,
  );
  lines.push(summaryLine(counts));
  return lines.join("\n");
}

function renderRow(row: ResultRow): string[] {
  const label = row.result.toUpperCase().padEnd(LABEL_WIDTH);
  const indent = " ".repeat(2 + LABEL_WIDTH + 1);
  const action = row.action === "-" ? "" : `  [${row.action}]`;
  const controls = row.result === "pass" || row.result === "skip" ? [] : failedControls(row.message, row.properties);
  const control = controls.length > 0 ? `  control${controls.length > 1 ? "s" : ""}: ${controls.join(", ")}` : "";
  const out = [`  ${label} ${row.rule === "" ? row.policyKey : `${row.policyKey}/${row.rule}`}${action}${control}`];
  if (row.message !== "")
    out.push(
      ...row.message
        .trim()
        .split("\n")
        .map((l) => `${indent}${l.trim()}`),
    );
  return out;
}

function where(row: ResultRow, cwd: string): string {
  if (row.origin === undefined) return "";
  const file = displaySource(row.origin.source, cwd);
  return row.origin.line !== undefined ? `  (${file}:${row.origin.line})` : `  (${file})`;
}

function groupKey(row: ResultRow): string {
  return `${row.resourceIndex}\u0000${row.resource}`;
}

function groupByResource(rows: readonly ResultRow[]): ResultRow[][] {
  const groups = new Map<string, ResultRow[]>();
  for (const row of rows) {
    const key = groupKey(row);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.values()].sort((a, b) => (a[0]?.resourceIndex ?? 0) - (b[0]?.resourceIndex ?? 0));
}

function compareRows(a: ResultRow, b: ResultRow): number {
  return ORDER[a.result] - ORDER[b.result] || compareText(a.policyKey, b.policyKey) || compareText(a.rule, b.rule);
}
