/** Render `bylaw test` results as a table, JSON or JUnit XML. */
import type { RowResult, SuiteResult } from "../../test-suite/types.js";
import { counted } from "../../output/counted.js";
import { renderTable } from "../../output/table.js";
import {
  countCases,
  renderJunitXml,
  type JunitCase,
  type JunitOutcome,
  type JunitSuite,
} from "../../output/junit-xml.js";
import { xmlEscape } from "../../output/xml.js";
import { writeYaml } from "../../../platform/yaml/index.js";
import type { JsonValue } from "../../../engine/index.js";

interface Summary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Kyverno counts a passing row whose expected result is skip as "skipped"; the summary line adds it to passed. */
export function summarize(suites: readonly SuiteResult[]): Summary {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const s of suites) {
    if (s.error !== undefined && s.results.length === 0) failed++;
    for (const r of s.results) {
      if (!r.ok) failed++;
      else if (r.expected === "skip" || r.reason === "Excluded") skipped++;
      else passed++;
    }
  }
  return { passed, failed, skipped };
}

/** The resource a row is about as Kyverno's table names it (`v1/Pod/default/web`); a row that found none names it as the test file does. */
function tableResource(r: RowResult): string {
  return r.subject ?? (r.kind ? `${r.kind}/${r.resource}` : r.resource);
}

export function renderSuiteTable(suite: SuiteResult, detailed: boolean, failOnly: boolean): string {
  const rows = suite.results.filter((r) => !failOnly || !r.ok);
  if (rows.length === 0) return "";
  const headers = ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", ...(detailed ? ["MESSAGE"] : [])];
  const body = rows.map((r, i) => [
    String(i + 1),
    r.policy,
    r.rule,
    tableResource(r),
    r.ok ? "Pass" : "Fail",
    r.reason,
    ...(detailed ? [r.message.replace(/\s+/g, " ").slice(0, 200)] : []),
  ]);
  return renderTable(headers, body);
}

/**
 * What Kyverno's `test` prints for a suite before its table (commands/test/test.go): the test, each
 * thing it loads, the duplicated resources it drops, the counts it applies, then `Checking results`.
 * A suite that stopped loading shows its first line only (its error goes to stderr).
 */
export function renderLoading(suite: SuiteResult): string {
  const lines = [`Loading test ${suite.name} ( ${suite.file} ) ...`];
  const l = suite.loaded;
  if (l === undefined) return lines.join("\n");
  lines.push("  Loading values/variables ...");
  if (l.userInfo) lines.push("  Loading user infos ...");
  lines.push("  Loading policies ...", "  Loading resources ...");
  for (const d of l.duplicates) lines.push(`  warning: found duplicated resource ${d}`);
  if (l.jsonPayloads) lines.push("  Loading JSON payloads ...");
  if (l.clusterResources) lines.push("Loading Kubernetes resources ...");
  lines.push(
    "  Loading exceptions ...",
    `  Applying ${counted(l.policies, "policy", "policies")} to ${counted(l.resources, "resource")} with ${counted(l.exceptions, "exception")} ...`,
    "  Checking results ...",
  );
  return lines.join("\n");
}

export function summaryLine(s: Summary, failOnly: boolean): string {
  return failOnly
    ? `Test Summary: ${s.failed} out of ${s.passed + s.skipped + s.failed} tests failed`
    : `Test Summary: ${s.passed + s.skipped} tests passed and ${s.failed} tests failed`;
}

export function renderJson(suites: readonly SuiteResult[]): string {
  return JSON.stringify(jsonDocument(suites), null, 2);
}

/** `-o yaml`: the document -o json prints, as YAML. */
export function renderYaml(suites: readonly SuiteResult[]): string {
  return writeYaml(JSON.parse(JSON.stringify(jsonDocument(suites))) as JsonValue).trimEnd();
}

/**
 * `-o markdown`: the table's rows as one Markdown table (a SUITE column names the test file's suite,
 * --detailed-results adds MESSAGE), then the summary line.
 */
export function renderMarkdown(suites: readonly SuiteResult[], detailed: boolean, failOnly: boolean): string {
  const cell = (text: string) => text.replace(/\s+/g, " ").replace(/\|/g, "\\|");
  const headers = ["ID", "SUITE", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", ...(detailed ? ["MESSAGE"] : [])];
  const lines = [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---|").join("")}`];
  let id = 0;
  for (const s of suites)
    for (const r of s.results.filter((row) => !failOnly || !row.ok))
      lines.push(
        `| ${[
          String(++id),
          s.name || "(unnamed)",
          r.policy,
          r.rule,
          tableResource(r),
          r.ok ? "Pass" : "Fail",
          r.reason,
          ...(detailed ? [r.message.slice(0, 200)] : []),
        ]
          .map(cell)
          .join(" | ")} |`,
      );
  return `${lines.join("\n")}\n\n${summaryLine(summarize(suites), failOnly)}`;
}

function jsonDocument(suites: readonly SuiteResult[]) {
  const summary = summarize(suites);
  return {
    summary,
    suites: suites.map((s) => ({
      path: s.path,
      name: s.name,
      error: s.error ?? null,
      policyErrors: s.policyErrors ?? [],
      warnings: s.warnings,
      results: s.results.map((r: RowResult) => ({
        policy: r.policy,
        rule: r.rule,
        resource: r.resource,
        kind: r.kind,
        expected: r.expected,
        actual: r.actual,
        ok: r.ok,
        reason: r.reason,
        message: r.message,
      })),
      ...(s.explanations !== undefined ? { explanations: s.explanations } : {}),
    })),
  };
}

export function renderJunit(suites: readonly SuiteResult[]): string {
  const s = summarize(suites);
  return renderJunitXml(
    {
      attributes: [
        ["tests", s.passed + s.skipped + s.failed],
        ["failures", s.failed],
      ],
      suites: suites.map(junitSuite),
    },
    { attributeText: xmlEscape, outcome: "inline" },
  );
}

/** A load failure, then one error case per policy problem, then a case per row. */
function junitSuite(suite: SuiteResult): JunitSuite {
  const cases: JunitCase[] = [];
  const testcase = (name: string, outcome?: JunitOutcome): JunitCase => ({
    attributes: [
      ["name", name],
      ["classname", suite.path],
    ],
    ...(outcome !== undefined && { outcome }),
  });
  if (suite.error !== undefined && suite.results.length === 0)
    cases.push(testcase("load", { kind: "failure", attributes: [["message", suite.error]] }));
  for (const e of suite.policyErrors ?? [])
    cases.push(testcase("policies", { kind: "error", attributes: [["message", "invalid policy"]], text: e }));
  for (const r of suite.results) {
    const name = `${r.policy}/${r.rule}/${r.resource}`;
    cases.push(
      r.ok ? testcase(name) : testcase(name, { kind: "failure", attributes: [["message", r.reason]], text: r.message }),
    );
  }
  const { tests, failures, errors } = countCases(cases);
  return {
    attributes: [
      ["name", suite.name || suite.path],
      ["tests", tests],
      ["failures", failures],
      ["errors", errors > 0 ? errors : undefined],
    ],
    cases,
  };
}
