import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readKubeBenchJson } from "./kube-bench-results.js";

const check = {
  test_number: "4.1.9",
  test_desc: "kubelet config.yaml permissions 600 (Automated)",
  audit: "stat -c permissions=%a /var/lib/kubelet/config.yaml",
  AuditConfig: "",
  type: "",
  remediation: "chmod 600 /var/lib/kubelet/config.yaml\n",
  test_info: ["chmod 600 /var/lib/kubelet/config.yaml\n"],
  status: "FAIL",
  actual_value: "permissions=644",
  scored: true,
  expected_result: "permissions has permissions 644, expected 600 or more restrictive",
};
const controls = {
  id: "4",
  version: "cis-1.10",
  text: "Worker Node Security Configuration",
  node_type: "node",
  tests: [
    {
      section: "4.1",
      type: "",
      pass: 0,
      fail: 1,
      warn: 0,
      info: 0,
      desc: "Worker Node Configuration Files",
      results: [check],
    },
  ],
  total_pass: 0,
  total_fail: 1,
  total_warn: 0,
  total_info: 0,
};

describe("kube-bench --json, both shapes", () => {
  test("{Controls, Totals} and the --nototals array read the same", () => {
    const withTotals = readKubeBenchJson(JSON.stringify({ Controls: [controls], Totals: {} }), "a.json");
    const bare = readKubeBenchJson(JSON.stringify([controls]), "b.json");
    assert.ok(withTotals.ok && bare.ok);
    assert.deepEqual(withTotals.value, bare.value);
    assert.deepEqual(withTotals.value[0], {
      id: "4",
      version: "cis-1.10",
      text: "Worker Node Security Configuration",
      nodeType: "node",
      totals: { PASS: 0, FAIL: 1, WARN: 0, INFO: 0 },
      tests: [
        {
          section: "4.1",
          desc: "Worker Node Configuration Files",
          results: [
            {
              testNumber: "4.1.9",
              testDesc: check.test_desc,
              audit: check.audit,
              type: "",
              remediation: check.remediation,
              status: "FAIL",
              actualValue: "permissions=644",
              expectedResult: check.expected_result,
              scored: true,
              reason: "",
            },
          ],
        },
      ],
    });
  });

  test("fields older kube-bench output lacks (reason, detected_version, totals) are optional", () => {
    const old: Record<string, unknown> = { ...controls };
    for (const k of ["total_pass", "total_fail", "total_warn", "total_info"]) delete old[k];
    const r = readKubeBenchJson(JSON.stringify([old]), "old.json");
    assert.ok(r.ok);
    assert.deepEqual(r.value[0]?.totals, { PASS: 0, FAIL: 0, WARN: 0, INFO: 0 });
  });
});

describe("bad input is an error naming the file and the field", () => {
  const error = (text: string) => {
    const r = readKubeBenchJson(text, "node.json");
    assert.ok(!r.ok);
    return r.error;
  };
  test("malformed JSON", () => {
    assert.match(error('{"Controls": ['), /^node\.json: not JSON \(.+\); kube-bench writes it with run --json$/);
  });
  test("a document of another shape", () => {
    assert.equal(
      error('{"items": []}'),
      'node.json: expected kube-bench\'s --json output: an object with "Controls" (and "Totals"), or the array --nototals writes; found an object with keys items',
    );
    assert.match(error('"text"'), /found string "text"$/);
  });
  test("a field of the wrong type, with its path", () => {
    const bad = { ...controls, tests: [{ ...controls.tests[0], results: [{ ...check, status: 3 }] }] };
    assert.equal(
      error(JSON.stringify({ Controls: [bad] })),
      "node.json: Controls[0].tests[0].results[0].status: expected a string, found number 3",
    );
    assert.equal(
      error(JSON.stringify([{ ...controls, node_type: undefined }])),
      "node.json: [0].node_type: expected a string, found nothing",
    );
    assert.equal(error(JSON.stringify({ Controls: {} })), "node.json: Controls: expected an array, found an object");
  });
});
