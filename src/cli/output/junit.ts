/**
 * `--output-format junit`: JUnit XML for CI test reporters. One testsuite per policy, one testcase
 * per rule × resource: fail is a <failure>, error an <error>, skip <skipped/>; warn passes (it does not
 * fail the run) and carries its message in <system-out>.
 */
import { displaySource } from "./source-path.js";
import { compareText, type ResultRow } from "./types.js";
import { xmlAttr, xmlEscape } from "./xml.js";

interface Tally {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export function renderJunit(rows: readonly ResultRow[], cwd: string): string {
  const byPolicy = new Map<string, ResultRow[]>();
  for (const row of rows) {
    const list = byPolicy.get(row.policyKey);
    if (list) list.push(row);
    else byPolicy.set(row.policyKey, [row]);
  }
  const total = tally(rows);
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="bylaw apply" ${attrs(total)}>`];
  for (const [policy, list] of [...byPolicy].sort(([a], [b]) => compareText(a, b))) {
    const title = list[0]?.info.title;
    out.push(`  <testsuite name="${xmlAttr(policy)}" ${attrs(tally(list))}>`);
    if (title !== undefined)
      out.push(`    <properties><property name="title" value="${xmlAttr(title)}"/></properties>`);
    for (const row of list) out.push(testcase(row, cwd));
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n");
}

function testcase(row: ResultRow, cwd: string): string {
  const file =
    row.origin !== undefined && !row.origin.source.startsWith("<")
      ? ` file="${xmlAttr(displaySource(row.origin.source, cwd))}"`
      : "";
  const line = file !== "" && row.origin?.line !== undefined ? ` line="${row.origin.line}"` : "";
  const open = `    <testcase name="${xmlAttr(`${row.rule} ${row.resource}`)}" classname="${xmlAttr(row.policyKey)}"${file}${line}`;
  const summary = xmlAttr(row.message.replace(/\s+/g, " ").trim());
  const action = row.action === "-" ? "fail" : row.action;
  switch (row.result) {
    case "fail":
      return `${open}>\n      <failure message="${summary}" type="${action}">${xmlEscape(row.message)}</failure>\n    </testcase>`;
    case "error":
      return `${open}>\n      <error message="${summary}" type="error">${xmlEscape(row.message)}</error>\n    </testcase>`;
    case "skip":
      return `${open}>\n      <skipped message="${summary}"/>\n    </testcase>`;
    case "warn":
      return `${open}>\n      <system-out>${xmlEscape(`warning: ${row.message}`)}</system-out>\n    </testcase>`;
    case "pass":
      return `${open}/>`;
  }
}

function tally(rows: readonly ResultRow[]): Tally {
  const t: Tally = { tests: rows.length, failures: 0, errors: 0, skipped: 0 };
  for (const r of rows) {
    if (r.result === "fail") t.failures++;
    else if (r.result === "error") t.errors++;
    else if (r.result === "skip") t.skipped++;
  }
  return t;
}

function attrs(t: Tally): string {
  return `tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" skipped="${t.skipped}"`;
}
