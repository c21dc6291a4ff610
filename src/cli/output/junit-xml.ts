/**
 * The JUnit XML document both `bylaw apply --output-format junit` and `bylaw test -o junit` write:
 * <testsuites> of <testsuite>s of <testcase>s, each case passing or holding one outcome element
 * (<failure>, <error>, <skipped/> or <system-out>). Callers decide what the suites, cases and
 * attributes are; this file owns the markup, the escaping and the counting.
 */
import { xmlEscape } from "./xml.js";

/** Attributes in the order they are written; an undefined value leaves the attribute out. */
type JunitAttributes = readonly (readonly [name: string, value: string | number | undefined])[];

export interface JunitOutcome {
  readonly kind: "failure" | "error" | "skipped" | "system-out";
  readonly attributes?: JunitAttributes;
  /** Element content; without it the element closes itself. */
  readonly text?: string;
}

export interface JunitCase {
  readonly attributes: JunitAttributes;
  /** None: the case passed. */
  readonly outcome?: JunitOutcome;
}

export interface JunitSuite {
  readonly attributes: JunitAttributes;
  /** Written as one <properties> line of <property name value/> when there are any. */
  readonly properties?: JunitAttributes;
  readonly cases: readonly JunitCase[];
}

interface JunitReport {
  readonly attributes: JunitAttributes;
  readonly suites: readonly JunitSuite[];
}

interface JunitLayout {
  /** How attribute values are escaped (xmlAttr keeps line breaks as character references; xmlEscape does not). */
  readonly attributeText: (s: string) => string;
  /** "nested": a case's outcome on its own line inside the <testcase>; "inline": on the <testcase> line. */
  readonly outcome: "nested" | "inline";
}

export function renderJunitXml(report: JunitReport, layout: JunitLayout): string {
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites${attributes(report.attributes, layout)}>`];
  for (const suite of report.suites) {
    out.push(`  <testsuite${attributes(suite.attributes, layout)}>`);
    if (suite.properties !== undefined && suite.properties.length > 0) {
      const properties = suite.properties.map(
        ([name, value]) =>
          `<property${attributes(
            [
              ["name", name],
              ["value", value],
            ],
            layout,
          )}/>`,
      );
      out.push(`    <properties>${properties.join("")}</properties>`);
    }
    for (const testcase of suite.cases) out.push(caseXml(testcase, layout));
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n");
}

interface JunitCounts {
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  readonly skipped: number;
}

/** The cases, and those with each kind of outcome that is not a pass. */
export function countCases(cases: readonly JunitCase[]): JunitCounts {
  const count = (kind: JunitOutcome["kind"]) => cases.filter((c) => c.outcome?.kind === kind).length;
  return { tests: cases.length, failures: count("failure"), errors: count("error"), skipped: count("skipped") };
}

/** All four counts as attributes, in JUnit's usual order. */
export function countAttributes(c: JunitCounts): JunitAttributes {
  return [
    ["tests", c.tests],
    ["failures", c.failures],
    ["errors", c.errors],
    ["skipped", c.skipped],
  ];
}

function caseXml(testcase: JunitCase, layout: JunitLayout): string {
  const open = `    <testcase${attributes(testcase.attributes, layout)}`;
  if (testcase.outcome === undefined) return `${open}/>`;
  const { kind, text } = testcase.outcome;
  const start = `<${kind}${attributes(testcase.outcome.attributes ?? [], layout)}`;
  const element = text === undefined ? `${start}/>` : `${start}>${xmlEscape(text)}</${kind}>`;
  return layout.outcome === "inline" ? `${open}>${element}</testcase>` : `${open}>\n      ${element}\n    </testcase>`;
}

function attributes(list: JunitAttributes, layout: JunitLayout): string {
  let out = "";
  for (const [name, value] of list) {
    if (value === undefined) continue;
    out += ` ${name}="${typeof value === "number" ? String(value) : layout.attributeText(value)}"`;
  }
  return out;
}
