/** `bylaw test`: verdicts, output formats, exit codes and bad suites. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const policy = policyFixture("require-team");
const pods = `apiVersion: v1
kind: Pod
metadata: {name: good, labels: {team: a}}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc}
`;
const testFile = (results: string, extra = "") => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: suite}
policies: [policy.yaml]
resources: [resources.yaml]
${extra}results:
${results}`;
const good = `- {policy: require-team, rule: check-team, resources: [good], kind: Pod, result: pass}
- {policy: require-team, rule: check-team, resources: [bad, default/bad], kind: Pod, result: fail}
- {policy: require-team, rule: check-team, resources: [svc], kind: Service, result: pass}
`;

interface JsonOut {
  summary: { passed: number; failed: number; skipped: number };
  suites: {
    path: string;
    error: string | null;
    results: { resource: string; ok: boolean; reason: string; actual: string | null }[];
  }[];
}

async function runJson(
  files: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number; out: JsonOut; stderr: string }> {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(["test", dir, "-o", "bylaw-json", ...args], io);
  return { code, out: JSON.parse(io.stdout.join("\n")) as JsonOut, stderr: io.stderr.join("\n") };
}

describe("bylaw test", () => {
  test("one result per expected row; an unmatched resource is Excluded (a pass)", async () => {
    const { code, out } = await runJson({
      "s/policy.yaml": policy,
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": testFile(good),
    });
    assert.equal(code, 0);
    assert.deepEqual(
      out.suites[0]?.results.map((r) => [r.resource, r.ok, r.reason]),
      [
        ["good", true, "Ok"],
        ["bad", true, "Ok"],
        ["default/bad", true, "Ok"],
        ["svc", true, "Excluded"],
      ],
    );
    assert.deepEqual(out.summary, { passed: 3, failed: 0, skipped: 1 });
    assert.match(out.suites[0]?.path ?? "", /\/s$/);
  });

  test("a wrong expectation fails the row with Want/got and exits 1", async () => {
    const { code, out } = await runJson({
      "s/policy.yaml": policy,
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": testFile(
        "- {policy: require-team, rule: check-team, resources: [bad], kind: Pod, result: pass}\n",
      ),
    });
    assert.equal(code, 1);
    assert.deepEqual(
      out.suites[0]?.results.map((r) => [r.ok, r.reason, r.actual]),
      [[false, "Want pass, got fail", "fail"]],
    );
  });

  test("a resource missing from the manifests is Not found", async () => {
    const { out } = await runJson({
      "s/policy.yaml": policy,
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": testFile(
        "- {policy: require-team, rule: check-team, resources: [ghost], kind: Pod, result: pass}\n",
      ),
    });
    assert.equal(out.suites[0]?.results[0]?.reason, "Not found");
  });

  test("a suite naming a missing file fails clearly while other suites still run", async () => {
    const broken = testFile(good).replace("resources: [resources.yaml]", "resources: [missing.yaml]");
    const { code, out } = await runJson({
      "a/policy.yaml": policy,
      "a/resources.yaml": pods,
      "a/kyverno-test.yaml": testFile(good),
      "b/policy.yaml": policy,
      "b/kyverno-test.yaml": broken,
    });
    assert.equal(code, 1);
    assert.equal(out.suites[0]?.error, null);
    assert.match(out.suites[1]?.error ?? "", /resources: no such file or directory: .*missing\.yaml/);
    assert.ok(out.suites[1]?.results.every((r) => !r.ok));
  });

  test("removed fields are rejected, as Kyverno parses test files strictly", async () => {
    const { out } = await runJson({
      "s/policy.yaml": policy,
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": testFile(good, "checks: []\n"),
    });
    assert.match(out.suites[0]?.error ?? "", /checks: unknown field/);
  });

  test("an unknown field runs the suite with a warning and a did-you-mean; a case typo is read as its field", async () => {
    const typos = `- {policy: require-team, rule: check-team, resources: [good], kind: Pod, result: pass, isMUtatingPolicy: false}
- {policy: require-team, rule: check-team, Resources: [bad], kind: Pod, result: fail}
`;
    const { code, out } = await runJson({
      "s/policy.yaml": policy,
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": testFile(typos, "resourcs: [x.yaml]\n"),
    });
    assert.equal(code, 0);
    const suite = out.suites[0];
    assert.equal(suite?.error, null);
    assert.deepEqual(
      suite?.results.map((r) => [r.resource, r.ok]),
      [
        ["good", true],
        ["bad", true],
      ],
    );
    const warnings = (suite as unknown as { warnings: string[] }).warnings.join("\n");
    assert.match(
      warnings,
      /resourcs: unknown field, ignored \(as Kyverno's CLI ignores it\); did you mean "resources"\?/,
    );
    assert.match(
      warnings,
      /results\[0\]\.isMUtatingPolicy: read as isMutatingPolicy, as Kyverno's CLI matches field names ignoring case/,
    );
    assert.match(warnings, /results\[1\]\.Resources: read as resources/);
  });

  test("a test file without apiVersion/kind is a deprecated schema", async () => {
    const { out } = await runJson({ "s/kyverno-test.yaml": "name: old\npolicies: []\n" });
    assert.match(out.suites[0]?.error ?? "", /deprecated schema/);
  });

  test("values set request.operation and per-rule variables", async () => {
    const opPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: ops}
spec:
  rules:
    - name: no-update
      match: {any: [{resources: {kinds: [Pod]}}]}
      context: [{name: forbidden, apiCall: {urlPath: /api/v1/namespaces/default, jmesPath: metadata.name}}]
      validate:
        deny: {conditions: {any: [{key: "{{ request.operation }}", operator: Equals, value: "{{ forbidden }}"}]}}
`;
    const values = `apiVersion: cli.kyverno.io/v1alpha1
kind: Values
policies:
  - name: ops
    rules: [{name: no-update, values: {forbidden: UPDATE}}]
    resources: [{name: bad, values: {request.operation: UPDATE}}]
`;
    const results =
      "- {policy: ops, rule: no-update, resources: [bad], kind: Pod, result: fail}\n- {policy: ops, rule: no-update, resources: [good], kind: Pod, result: pass}\n";
    const { code, out } = await runJson({
      "s/policy.yaml": opPolicy,
      "s/resources.yaml": pods,
      "s/values.yaml": values,
      "s/kyverno-test.yaml": testFile(results, "variables: values.yaml\n"),
    });
    assert.deepEqual(
      out.suites[0]?.results.map((r) => r.reason),
      ["Ok", "Ok"],
    );
    assert.equal(code, 0);
  });

  test("a row's operation: DELETE evaluates the resource as the old object", async () => {
    const delPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: no-delete}
spec:
  rules:
    - name: block
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        deny: {conditions: {any: [{key: "{{ request.operation }}", operator: Equals, value: DELETE}]}}
`;
    const results =
      "- {policy: no-delete, rule: block, resources: [good], kind: Pod, result: fail, operation: DELETE}\n- {policy: no-delete, rule: block, resources: [good], kind: Pod, result: pass}\n";
    const { out } = await runJson({
      "s/policy.yaml": delPolicy,
      "s/resources.yaml": pods,
      "s/kyverno-test.yaml": testFile(results),
    });
    assert.deepEqual(
      out.suites[0]?.results.map((r) => [r.actual, r.reason]),
      [
        ["fail", "Ok"],
        ["pass", "Ok"],
      ],
    );
  });

  test("the table output ends with Kyverno's summary line", async () => {
    const dir = tempTree({ "s/policy.yaml": policy, "s/resources.yaml": pods, "s/kyverno-test.yaml": testFile(good) });
    const io = recordingIo();
    await main(["test", dir], io);
    assert.match(io.stdout.join("\n"), /Test Summary: 4 tests passed and 0 tests failed/);
  });

  test("junit output counts tests and failures", async () => {
    const dir = tempTree({ "s/policy.yaml": policy, "s/resources.yaml": pods, "s/kyverno-test.yaml": testFile(good) });
    const io = recordingIo();
    await main(["test", dir, "-o", "junit"], io);
    assert.match(io.stdout.join("\n"), /<testsuites tests="4" failures="0">/);
  });

  test("--require-tests exits 1 when nothing is found", async () => {
    const dir = tempTree({ "empty.txt": "" });
    assert.equal(await main(["test", dir, "--require-tests"], recordingIo()), 1);
    assert.equal(await main(["test", dir], recordingIo()), 0);
  });
});
