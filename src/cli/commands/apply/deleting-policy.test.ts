/** bylaw apply / bylaw test with a DeletingPolicy (issue 34 §3): what Kyverno's CLI answers, one Deletion row a resource. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const resources = `apiVersion: v1
kind: Pod
metadata: {name: expired, namespace: shop, labels: {expire: "true"}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: kept, namespace: shop, labels: {expire: "false"}}
spec: {containers: [{name: c, image: nginx}]}
`;

function policy(schedule: string, condition = "object.metadata.labels['expire'] == 'true'"): string {
  return `apiVersion: policies.kyverno.io/v1
kind: DeletingPolicy
metadata: {name: old-pods}
spec:
  schedule: "${schedule}"
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], resources: [pods]}]}
  conditions: [{name: expired, expression: "${condition}"}]
`;
}

async function run(args: string[], files: Record<string, string>) {
  const dir = tempTree(files);
  const io = recordingIo();
  const code = await main(
    args.map((a) => (a.startsWith("$DIR") ? join(dir, a.slice(5)) : a)),
    io,
  );
  return { code, stdout: io.stdout.join("\n"), stderr: io.stderr.join("\n") };
}

test("apply: pass 'resource matched' for what it would delete, fail 'resource did not match' for the rest", async () => {
  const { code, stdout } = await run(["apply", "$DIR/p.yaml", "-r", "$DIR/r.yaml", "--output-format", "json"], {
    "p.yaml": policy("*/1 * * * *"),
    "r.yaml": resources,
  });
  assert.equal(code, 1);
  const out = JSON.parse(stdout) as { results: { rule: string; resource: string; result: string; message: string }[] };
  assert.deepEqual(
    out.results.map((r) => [r.rule, r.resource, r.result, r.message]),
    [
      ["old-pods", "Pod/shop/expired", "pass", "resource matched"],
      ["old-pods", "Pod/shop/kept", "fail", "resource did not match"],
    ],
  );
});

test("apply: an invalid schedule fails the run, naming the field", async () => {
  const { code, stderr } = await run(["apply", "$DIR/p.yaml", "-r", "$DIR/r.yaml"], {
    "p.yaml": policy("every minute"),
    "r.yaml": resources,
  });
  assert.equal(code, 2);
  assert.match(stderr, /spec\.schedule: DeletingPolicy old-pods: spec\.schedule: Invalid value: "every minute"/);
});

test("apply: a condition that does not compile fails the run, naming the field", async () => {
  const { code, stderr } = await run(["apply", "$DIR/p.yaml", "-r", "$DIR/r.yaml"], {
    "p.yaml": policy("@hourly", "object.metadata.name =="),
    "r.yaml": resources,
  });
  assert.equal(code, 2);
  assert.match(stderr, /spec\.conditions\[0\]\.expression: DeletingPolicy old-pods: .*compilation failed/);
});

test("test: rows name the policy (no rule); pass and fail are what it would and would not delete", async () => {
  const suite = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: t}
policies: [p.yaml]
resources: [r.yaml]
results:
- {policy: old-pods, kind: Pod, resources: [expired], result: pass}
- {policy: old-pods, kind: Pod, resources: [kept], result: fail}
`;
  const { code, stdout } = await run(["test", "$DIR/"], {
    "p.yaml": policy("*/1 * * * *"),
    "r.yaml": resources,
    "kyverno-test.yaml": suite,
  });
  assert.equal(code, 0, stdout);
  assert.match(stdout, /2 tests passed and 0 tests failed/);
});
