import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderJunit } from "./output.js";
import type { RowResult, SuiteResult } from "../../test-suite/types.js";

function result(over: Partial<RowResult>): RowResult {
  return {
    id: "s::0::web",
    policy: "require-team",
    rule: "check-team",
    resource: "web",
    kind: "Pod",
    expected: "pass",
    actual: "pass",
    ok: true,
    reason: "Ok",
    message: "",
    ...over,
  };
}

/** Every branch of the writer: a suite that could not load, policy errors, passing and failing rows, escaping. */
const suites: SuiteResult[] = [
  {
    path: "suites/good",
    file: "suites/good/kyverno-test.yaml",
    name: "good & <plain>",
    warnings: [],
    results: [result({}), result({ resource: "skipped", expected: "skip", actual: "skip" })],
  },
  {
    path: "suites/mixed",
    file: "suites/mixed/kyverno-test.yaml",
    name: "",
    warnings: [],
    policyErrors: ['policy.yaml: document 2: spec.rules[0]: "name" is required', "policy.yaml: line\nbreak"],
    results: [
      result({}),
      result({
        resource: "bad",
        expected: "pass",
        actual: "fail",
        ok: false,
        reason: "Want pass, got fail",
        message: 'validation error: team "label" <required>\nsecond line\u0001',
      }),
    ],
  },
  {
    path: "suites/broken",
    file: "suites/broken/kyverno-test.yaml",
    name: "broken",
    error: "cannot read resources.yaml: no such file\n(second line)",
    warnings: [],
    results: [],
  },
];

describe("bylaw test -o junit", () => {
  test("the XML is pinned byte for byte", () => {
    assert.equal(renderJunit(suites), EXPECTED);
  });
});

const EXPECTED = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" failures="2">
  <testsuite name="good &amp; &lt;plain&gt;" tests="2" failures="0">
    <testcase name="require-team/check-team/web" classname="suites/good"/>
    <testcase name="require-team/check-team/skipped" classname="suites/good"/>
  </testsuite>
  <testsuite name="suites/mixed" tests="4" failures="1" errors="2">
    <testcase name="policies" classname="suites/mixed"><error message="invalid policy">policy.yaml: document 2: spec.rules[0]: &quot;name&quot; is required</error></testcase>
    <testcase name="policies" classname="suites/mixed"><error message="invalid policy">policy.yaml: line
break</error></testcase>
    <testcase name="require-team/check-team/web" classname="suites/mixed"/>
    <testcase name="require-team/check-team/bad" classname="suites/mixed"><failure message="Want pass, got fail">validation error: team &quot;label&quot; &lt;required&gt;
second line</failure></testcase>
  </testsuite>
  <testsuite name="broken" tests="1" failures="1">
    <testcase name="load" classname="suites/broken"><failure message="cannot read resources.yaml: no such file
(second line)"/></testcase>
  </testsuite>
</testsuites>`;
