import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { renderHumanSummary } from "./human-summary.js";
import { PSS_MESSAGE, row } from "../../../test/support/result-rows.js";

const options = { policies: 3, resources: 2, detailed: false, cwd: "/repo" };

describe("renderHumanSummary", () => {
  test("each resource with findings under its file and line; failures before warnings, then by policy", () => {
    const out = renderHumanSummary(
      [
        row({ result: "pass", resourceIndex: 0 }),
        row({
          result: "warn",
          policy: "a-warned",
          action: "Audit",
          message: "tag latest",
          resourceIndex: 1,
          resource: "Pod/shop/debug",
          origin: { source: "/repo/manifests/pods.yaml", line: 12 },
        }),
        row({
          result: "fail",
          policy: "z-policy",
          resourceIndex: 1,
          resource: "Pod/shop/debug",
          origin: { source: "/repo/manifests/pods.yaml", line: 12 },
        }),
        row({
          result: "error",
          policy: "m-policy",
          action: "-",
          rule: "lookup",
          message: "variable substitution failed",
          resourceIndex: 1,
          resource: "Pod/shop/debug",
          origin: { source: "/repo/manifests/pods.yaml", line: 12 },
        }),
      ],
      options,
    );
    assert.equal(
      out,
      [
        "Pod/shop/debug  (manifests/pods.yaml:12)",
        "  FAIL   z-policy/check-team  [Enforce]",
        "         validation error: team label required.",
        "  ERROR  m-policy/lookup",
        "         variable substitution failed",
        "  WARN   a-warned/check-team  [Audit]",
        "         tag latest",
        "",
        "Applied 3 policies to 2 resources: 1 resource with findings.",
        "pass: 1, fail: 1, warn: 1, error: 1, skip: 0 ",
      ].join("\n"),
    );
  });

  test("a result with no rule name (the CEL policy kinds) shows the policy alone", () => {
    const out = renderHumanSummary(
      [row({ result: "fail", policy: "vpol", rule: "", action: "Audit", message: "no latest" })],
      options,
    );
    assert.equal(out.split("\n")[1], "  FAIL   vpol  [Audit]");
  });

  test("a podSecurity failure names the controls that failed; multi-line messages stay indented", () => {
    const out = renderHumanSummary(
      [
        row({
          result: "fail",
          policy: "psa",
          rule: "restricted",
          action: "Audit",
          message: PSS_MESSAGE.replace('":', '":\n'),
        }),
      ],
      options,
    );
    const lines = out.split("\n");
    assert.equal(
      lines[1],
      "  FAIL   psa/restricted  [Audit]  controls: allowPrivilegeEscalation != false, runAsNonRoot != true",
    );
    assert.match(
      lines[2] ?? "",
      /^ {9}Validation rule 'restricted' failed\. It violates PodSecurity "restricted:latest":$/,
    );
    assert.match(lines[3] ?? "", /^ {9}\(Forbidden reason: allowPrivilegeEscalation/);
  });

  test("the control names come from the engine's controlsJSON property when it is there", () => {
    const properties = { controlsJSON: '[{"ID":"privileged","Name":"Privileged Containers","Images":["nginx"]}]' };
    const out = renderHumanSummary(
      [row({ result: "fail", policy: "psa", rule: "baseline", message: PSS_MESSAGE, properties })],
      options,
    );
    assert.match(out, /^ {2}FAIL {3}psa\/baseline {2}\[Enforce\] {2}control: Privileged Containers$/m);
  });

  test("resources keep input order, whatever order the results came in; a blank line between them", () => {
    const out = renderHumanSummary(
      [
        row({ result: "fail", resourceIndex: 2, resource: "Pod/b/second" }),
        row({ result: "fail", resourceIndex: 0, resource: "Pod/a/first" }),
      ],
      options,
    );
    const headers = out.split("\n").filter((l) => l.startsWith("Pod/"));
    assert.deepEqual(
      headers.map((h) => h.split(" ")[0]),
      ["Pod/a/first", "Pod/b/second"],
    );
    assert.match(out, /validation error: team label required\.\n\nPod\/b\/second/);
  });

  test("no findings: only the totals; --detailed-results lists passes and skips too", () => {
    const rows = [row({ result: "pass" }), row({ result: "skip", rule: "other", message: "rule skipped" })];
    assert.equal(
      renderHumanSummary(rows, { ...options, policies: 1, resources: 1 }),
      "Applied 1 policy to 1 resource: no findings.\npass: 1, fail: 0, warn: 0, error: 0, skip: 1 ",
    );
    const detailed = renderHumanSummary(rows, { ...options, detailed: true });
    assert.match(detailed, /^ {2}PASS {3}require-team\/check-team {2}\[Enforce\]$/m);
    assert.match(detailed, /^ {2}SKIP {3}require-team\/other/m);
  });

  test("stdin resources and files outside the working folder are named as given", () => {
    const out = renderHumanSummary(
      [
        row({ result: "fail", origin: { source: "<stdin>", line: 3 } }),
        row({ result: "fail", resourceIndex: 1, resource: "Pod/x/y", origin: { source: "/elsewhere/p.yaml" } }),
      ],
      options,
    );
    assert.match(out, /^Pod\/shop\/web {2}\(<stdin>:3\)$/m);
    assert.match(out, /^Pod\/x\/y {2}\(\/elsewhere\/p\.yaml\)$/m);
  });

  test("exceptions are counted in the closing line", () => {
    assert.match(
      renderHumanSummary([], { ...options, exceptions: 2 }),
      /^Applied 3 policies to 2 resources with 2 exceptions: no findings\.$/m,
    );
  });
});
