import assert from "node:assert/strict";
import { test } from "node:test";
import type { RowResult } from "../../src/cli/test-suite/types.js";
import { compareRows, kyvernoRows } from "./compare-rows.js";

const KYVERNO_OUTPUT = `Loading test  ( .kyverno-test/kyverno-test.yaml ) ...
  Loading values/variables ...
  Loading policies ...
  Checking results ...

[
  {
    "ID": 1,
    "Message": "label team is required",
    "POLICY": "require-team",
    "REASON": "Ok",
    "RESOURCE": "v1/Pod/default/bad",
    "RESULT": "Pass",
    "RULE": "check-team"
  },
  {
    "ID": 2,
    "Message": "rule passed",
    "POLICY": "require-team",
    "REASON": "Ok",
    "RESOURCE": "v1/Pod/default/good",
    "RESULT": "Pass",
    "RULE": "check-team"
  },
  {
    "ID": 3,
    "Message": "",
    "POLICY": "require-team",
    "REASON": "Want pass, got fail",
    "RESOURCE": "v1/Pod/default/odd",
    "RESULT": "Fail",
    "RULE": "check-team"
  }
]


Test Summary: 2 tests passed and 1 tests failed
`;

function row(resource: string, ok: boolean, reason: string, message: string): RowResult {
  return {
    id: `s::0::${resource}`,
    policy: "require-team",
    rule: "check-team",
    resource,
    kind: "Pod",
    expected: "pass",
    actual: ok ? "pass" : "fail",
    ok,
    reason,
    message,
    subject: `v1/Pod/default/${resource}`,
  };
}

test("Kyverno's JSON rows are read from between its progress lines", () => {
  const rows = kyvernoRows(KYVERNO_OUTPUT);
  assert.deepEqual(
    rows.map((r) => `${r.RESOURCE} ${r.RESULT} ${r.REASON}`),
    ["v1/Pod/default/bad Pass Ok", "v1/Pod/default/good Pass Ok", "v1/Pod/default/odd Fail Want pass, got fail"],
  );
  assert.deepEqual(kyvernoRows("Loading test ...\n\n[]\n\nTest Summary: 0 tests passed and 0 tests failed\n"), []);
});

test("rows pair by policy, rule and resource; outcome differences before message differences", () => {
  const result = compareRows(kyvernoRows(KYVERNO_OUTPUT), [
    row("bad", true, "Ok", "label team is required"),
    row("good", true, "Ok", "validation rule 'check-team' passed."),
    row("odd", true, "Ok", ""),
    row("extra", true, "Ok", ""),
  ]);
  assert.equal(result.pairs, 3);
  assert.deepEqual(result.differences, [
    {
      key: "require-team/check-team v1/Pod/default/good",
      what: "message",
      kyverno: "rule passed",
      bylaw: "validation rule 'check-team' passed.",
    },
    {
      key: "require-team/check-team v1/Pod/default/odd",
      what: "outcome",
      kyverno: "Fail Want pass, got fail",
      bylaw: "Pass Ok",
    },
    { key: "require-team/check-team v1/Pod/default/extra", what: "bylaw-only", bylaw: "Pass Ok" },
  ]);
});

test("a Kyverno row Bylaw has no row for is reported", () => {
  const result = compareRows(kyvernoRows(KYVERNO_OUTPUT), [row("bad", true, "Ok", "label team is required")]);
  assert.deepEqual(
    result.differences.map((d) => `${d.what} ${d.key}`),
    [
      "kyverno-only require-team/check-team v1/Pod/default/good",
      "kyverno-only require-team/check-team v1/Pod/default/odd",
    ],
  );
});

test("a Pod controller's row pairs by the rule that gave the result (autogen-NAME), as both tables name it", () => {
  const kyverno = kyvernoRows(
    '[\n  {\n    "ID": 1,\n    "Message": "",\n    "POLICY": "require-team",\n    "REASON": "Ok",\n    "RESOURCE": "apps/v1/Deployment/default/web",\n    "RESULT": "Pass",\n    "RULE": "autogen-check-team"\n  }\n]\n',
  );
  const deployment: RowResult = {
    ...row("web", true, "Ok", ""),
    kind: "Deployment",
    subject: "apps/v1/Deployment/default/web",
    resultRule: "autogen-check-team",
  };
  assert.deepEqual(compareRows(kyverno, [deployment]), { pairs: 1, extraExcluded: 0, differences: [] });
});

test("Kyverno's Excluded row beside a real row of the same resource is counted apart, not paired", () => {
  const kyvernoRow = (id: number, result: string, reason: string): string =>
    `  {\n    "ID": ${id},\n    "POLICY": "disallow-host-ports",\n    "REASON": "${reason}",\n    "RESOURCE": "batch/v1/CronJob/default/good",\n    "RESULT": "${result}",\n    "RULE": ""\n  }`;
  const cronJob = (ok: boolean): RowResult => ({
    ...row("good", ok, ok ? "Ok" : "Want pass, got fail", ""),
    policy: "disallow-host-ports",
    rule: "",
    kind: "CronJob",
    subject: "batch/v1/CronJob/default/good",
    resultRule: "",
  });
  const twoRows = kyvernoRows(`[\n${kyvernoRow(1, "Pass", "Excluded")},\n${kyvernoRow(2, "Pass", "Ok")}\n]\n`);
  assert.deepEqual(compareRows(twoRows, [cronJob(true)]), { pairs: 1, extraExcluded: 1, differences: [] });
  // The real row still decides: a failure behind the Excluded row is an outcome difference.
  const failing = kyvernoRows(
    `[\n${kyvernoRow(1, "Pass", "Excluded")},\n${kyvernoRow(2, "Fail", "Want pass, got fail")}\n]\n`,
  );
  assert.deepEqual(
    compareRows(failing, [cronJob(true)]).differences.map((d) => `${d.what} ${d.kyverno ?? ""}`),
    ["outcome Fail Want pass, got fail"],
  );
  // An Excluded row alone is Kyverno's answer for the resource and pairs as any row.
  const alone = kyvernoRows(`[\n${kyvernoRow(1, "Pass", "Excluded")}\n]\n`);
  assert.deepEqual(
    compareRows(alone, [cronJob(true)]).differences.map((d) => `${d.what} ${d.kyverno ?? ""}`),
    ["outcome Pass Excluded"],
  );
});
