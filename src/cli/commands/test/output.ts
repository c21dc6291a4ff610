/** Render `bylaw test` results as Kyverno's table, Bylaw's JSON or YAML document, or JUnit XML (Kyverno's -o json|yaml|markdown: kyverno-formats.ts). */
import type { RowResult, SuiteResult } from "../../test-suite/types.js";
import { counted } from "../../output/counted.js";
import { renderTable } from "../../output/table.js";
import type { KyvernoRow } from "./kyverno-formats.js";
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

/** Kyverno's test table of rows (output/table), --detailed-results adding MESSAGE (as the rule gave it; table.ts wraps a long one as Kyverno's printer does). */
export function renderRowsTable(
  rows: readonly KyvernoRow[],
  options: { readonly detailed: boolean; readonly plain: boolean },
): string {
  const { detailed } = options;
  const headers = ["ID", "POLICY", "RULE", "RESOURCE", "RESULT", "REASON", ...(detailed ? ["MESSAGE"] : [])];
  const body = rows.map((r) => [
    String(r.id),
    r.policy,
    r.rule,
    r.resource,
    r.result,
    r.reason,
    ...(detailed ? [r.message] : []),
  ]);
  return renderTable(headers, body, options);
}

/**
 * What Kyverno's `test` prints for a suite before its table (commands/test/test.go): the test, each
 * thing it loads, the duplicated resources it drops, the counts it applies, then `Checking results`.
 * A suite that stopped loading shows its first line only (its error goes to stderr). The test's name
 * is left blank, as Kyverno v1.19 prints it: it prints the Test's deprecated top-level `name`, which
 * a test in the current schema never has (one that has it is refused as the old schema), not
 * `metadata.name`.
 */
export function renderLoading(suite: SuiteResult): string {
  const lines = [`Loading test  ( ${suite.file} ) ...`];
  const l = suite.loaded;
  if (l === undefined) return lines.join("\n");
  lines.push("  Loading values/variables ...");
  if (l.userInfo) lines.push("  Loading user infos ...");
  lines.push("  Loading policies ...", "  Loading resources ...");
  for (const d of l.duplicates) lines.push(`  warning: found duplicated resource ${d}`);
  if (l.jsonPayloads) lines.push("  Loading JSON payloads ...");
  if (l.httpPayloads) lines.push("  Loading HTTP payloads ...");
  if (l.envoyPayloads) lines.push("  Loading Envoy payloads ...");
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

/** `-o bylaw-json`: Bylaw's document of every suite (its errors, warnings and explanations too). */
export function renderBylawJson(suites: readonly SuiteResult[]): string {
  return JSON.stringify(jsonDocument(suites), null, 2);
}

/** `-o bylaw-yaml`: the document -o bylaw-json prints, as YAML. */
export function renderBylawYaml(suites: readonly SuiteResult[]): string {
  return writeYaml(JSON.parse(JSON.stringify(jsonDocument(suites))) as JsonValue).trimEnd();
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
