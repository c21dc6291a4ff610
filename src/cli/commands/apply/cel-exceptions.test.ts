/**
 * policies.kyverno.io PolicyExceptions through the CLI entry: `bylaw apply -e`, an exception in a
 * policy path, and `bylaw test` with a test file's `exceptions:` (rows flagged isValidatingPolicy
 * compare whatever the rule name, as Kyverno's CLI does). An invalid one fails the run naming the
 * file, the document and the field.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const policy = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: no-latest}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  validations:
    - expression: "object.spec.containers.all(c, !c.image.endsWith(':latest') || c.image in exceptions.allowedImages)"
      message: images must not use the latest tag
`;
const pods = `apiVersion: v1
kind: Pod
metadata: {name: tool, namespace: ops}
spec: {containers: [{name: c, image: "tool:latest"}]}
---
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: "web:latest"}]}
`;
const exception = `apiVersion: policies.kyverno.io/v1
kind: PolicyException
metadata: {name: ops-tool, namespace: ops}
spec:
  policyRefs: [{kind: ValidatingPolicy, name: no-latest}]
  matchConditions:
    - {name: ops-tool, expression: "object.metadata.namespace == 'ops' && object.metadata.name == 'tool'"}
`;

async function apply(extra: string[], files: Record<string, string>) {
  const dir = tempTree({ "p.yaml": policy, "pods.yaml": pods, ...files });
  const io = recordingIo("");
  const code = await main(
    ["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), ...extra.map((a) => a.replace("$DIR", dir))],
    io,
  );
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

function results(out: string): string[][] {
  return (
    JSON.parse(out) as { results: { resource: string; rule: string; result: string; message: string }[] }
  ).results.map((r) => [r.resource, r.rule, r.result, r.message]);
}

describe("bylaw apply with policies.kyverno.io PolicyExceptions", () => {
  test("-e: the excepted Pod is skipped with Kyverno's message; the other still fails", async () => {
    const { code, out } = await apply(["-e", "$DIR/ex.yaml", "--output-format", "json"], { "ex.yaml": exception });
    assert.equal(code, 1);
    assert.deepEqual(results(out), [
      ["Pod/ops/tool", "exception", "skip", "rule is skipped due to policy exception: ops/ops-tool"],
      ["Pod/shop/web", "", "fail", "images must not use the latest tag"],
    ]);
  });

  test("an exception in a policy path is honoured too; a partial one (images) feeds exceptions.allowedImages", async () => {
    const partial = exception
      .replace("  matchConditions:", '  images: ["web:latest"]\n  matchConditions:')
      .replace("object.metadata.namespace == 'ops' && object.metadata.name == 'tool'", "true");
    const dir = tempTree({ "p.yaml": `${policy}---\n${partial}`, "pods.yaml": pods });
    const io = recordingIo("");
    const code = await main(
      ["apply", join(dir, "p.yaml"), "-r", join(dir, "pods.yaml"), "--output-format", "json"],
      io,
    );
    assert.equal(code, 1);
    assert.deepEqual(
      results(io.stdout.join("\n")).map((r) => [r[0], r[2]]),
      [
        ["Pod/ops/tool", "fail"],
        ["Pod/shop/web", "pass"],
      ],
    );
  });

  test("an invalid exception exits 2 naming the file, document and field", async () => {
    const { code, err } = await apply(["-e", "$DIR/ex.yaml"], {
      "ex.yaml": exception.replace("spec:", "spec:\n  reportResult: maybe"),
    });
    assert.equal(code, 2);
    assert.match(
      err,
      /ex\.yaml: document 1 \(line \d+\): invalid PolicyException: spec\.reportResult: Unsupported value/,
    );
  });

  test("an exception whose condition does not compile fails the policies it names, as Kyverno compiles it with them", async () => {
    const { out } = await apply(["-e", "$DIR/ex.yaml", "--output-format", "json"], {
      "ex.yaml": exception.replace("== 'tool'", "=="),
    });
    const rows = results(out);
    assert.equal(rows.length, 2);
    for (const r of rows) {
      assert.equal(r[2], "error", JSON.stringify(r));
      assert.match(r[3] ?? "", /spec\.matchConditions\[0\]\.expression: .*Syntax error/);
    }
  });
});

describe("bylaw test with policies.kyverno.io PolicyExceptions", () => {
  test("a test file's exceptions apply; rows flagged isValidatingPolicy compare whatever the rule name", async () => {
    const dir = tempTree({
      "policy.yaml": policy,
      "pods.yaml": pods,
      "ex.yaml": exception,
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: cel-exception}
policies: [policy.yaml]
resources: [pods.yaml]
exceptions: [ex.yaml]
results:
  - {policy: no-latest, kind: Pod, resources: [ops/tool], result: skip, isValidatingPolicy: true}
  - {policy: no-latest, kind: Pod, resources: [shop/web], result: fail, isValidatingPolicy: true}
`,
    });
    const io = recordingIo("");
    const code = await main(["test", dir], io);
    assert.equal(code, 0, io.stdout.join("\n") + io.stderr.join("\n"));
    assert.match(io.stdout.join("\n"), /2 tests passed and 0 tests failed/);
  });

  test("an invalid exception in a test file fails the suite naming the file, document and field", async () => {
    const dir = tempTree({
      "policy.yaml": policy,
      "pods.yaml": pods,
      "ex.yaml": exception.replace(
        "policyRefs: [{kind: ValidatingPolicy, name: no-latest}]",
        "policyRefs: [{name: no-latest}]",
      ),
      "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: cel-exception}
policies: [policy.yaml]
resources: [pods.yaml]
exceptions: [ex.yaml]
results:
  - {policy: no-latest, kind: Pod, resources: [ops/tool], result: skip, isValidatingPolicy: true}
`,
    });
    const io = recordingIo("");
    const code = await main(["test", dir], io);
    assert.notEqual(code, 0);
    assert.match(
      io.stdout.join("\n") + io.stderr.join("\n"),
      /ex\.yaml: document 1 \(line \d+\): invalid PolicyException: spec\.policyRefs\[0\]\.kind: Required value/,
    );
  });
});
