/**
 * `--output-format junit`: JUnit XML for CI test reporters. One testsuite per policy, one testcase
 * per rule × resource: fail is a <failure>, error an <error>, skip <skipped/>; warn passes (it does not
 * fail the run) and carries its message in <system-out>.
 */
import {
  countAttributes,
  countCases,
  renderJunitXml,
  type JunitCase,
  type JunitOutcome,
  type JunitSuite,
} from "./junit-xml.js";
import { displaySource } from "./source-path.js";
import { compareText, type ResultRow } from "./types.js";
import { xmlAttr } from "./xml.js";

export function renderJunit(rows: readonly ResultRow[], cwd: string): string {
  const byPolicy = new Map<string, ResultRow[]>();
  for (const row of rows) {
    const list = byPolicy.get(row.policyKey);
    if (list) list.push(row);
    else byPolicy.set(row.policyKey, [row]);
  }
  const suites = [...byPolicy].sort(([a], [b]) => compareText(a, b)).map(([policy, list]) => suite(policy, list, cwd));
  return renderJunitXml(
    { attributes: [["name", "bylaw apply"], ...countAttributes(countCases(suites.flatMap((s) => s.cases)))], suites },
    { attributeText: xmlAttr, outcome: "nested" },
  );
}

function suite(policy: string, rows: readonly ResultRow[], cwd: string): JunitSuite {
  const cases = rows.map((row) => testcase(row, cwd));
  const title = rows[0]?.info.title;
  return {
    attributes: [["name", policy], ...countAttributes(countCases(cases))],
    properties: title === undefined ? [] : [["title", title]],
    cases,
  };
}

function testcase(row: ResultRow, cwd: string): JunitCase {
  const file =
    row.origin !== undefined && !row.origin.source.startsWith("<") ? displaySource(row.origin.source, cwd) : undefined;
  const outcome = caseOutcome(row);
  return {
    attributes: [
      ["name", `${row.rule} ${row.resource}`],
      ["classname", row.policyKey],
      ["file", file],
      ["line", file !== undefined ? row.origin?.line : undefined],
    ],
    ...(outcome !== undefined && { outcome }),
  };
}

function caseOutcome(row: ResultRow): JunitOutcome | undefined {
  const message = row.message.replace(/\s+/g, " ").trim();
  switch (row.result) {
    case "fail":
      return {
        kind: "failure",
        attributes: [
          ["message", message],
          ["type", row.action === "-" ? "fail" : row.action],
        ],
        text: row.message,
      };
    case "error":
      return {
        kind: "error",
        attributes: [
          ["message", message],
          ["type", "error"],
        ],
        text: row.message,
      };
    case "skip":
      return { kind: "skipped", attributes: [["message", message]] };
    case "warn":
      return { kind: "system-out", text: `warning: ${row.message}` };
    case "pass":
      return undefined;
  }
}
