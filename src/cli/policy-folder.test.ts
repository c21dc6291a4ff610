/** `bylaw apply <folder>` on the Kyverno policy library's layout: files that are not policies are skipped, and counted. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "./main.js";
import { recordingIo } from "../../test/support/fake-io.js";
import { tempTree } from "../../test/support/temp-dir.js";
import { policyFixture } from "../../test/support/policy-fixtures.js";

const pods = `apiVersion: v1
kind: Pod
metadata: {name: good, namespace: shop, labels: {team: a}}
spec: {containers: [{name: c, image: nginx:1}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const library = {
  "policies/require-team/require-team.yaml": policyFixture("require-team"),
  "policies/require-team/.kyverno-test/kyverno-test.yaml":
    "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [../require-team.yaml]\nresources: [resource.yaml]\nresults: []\n",
  "policies/require-team/.kyverno-test/resource.yaml": pods,
  "policies/require-team/.kyverno-test/values.yaml":
    "apiVersion: cli.kyverno.io/v1alpha1\nkind: Values\nmetadata: {name: v}\n",
  "policies/require-team/artifacthub-pkg.yml": "name: require-team\nversion: 1.0.0\n",
  "pods.yaml": pods,
};

test("a policy-library folder applies its policies and skips the test, resource and values files, saying how many", async () => {
  const dir = tempTree(library);
  const io = recordingIo();
  const code = await main(["apply", join(dir, "policies"), "-r", join(dir, "pods.yaml")], io);
  const err = io.stderr.join("\n");
  assert.equal(code, 1, err);
  assert.match(io.stdout.join("\n"), /pass: 1, fail: 1/);
  assert.match(
    err,
    /policies: skipped 4 files that are not a policy \(tests, resources, values\.\.\.\), as kyverno apply skips them/,
  );
  assert.doesNotMatch(err, /error:/);
});

test("in a folder, a file mixing a policy with another document is still an error (exit 2)", async () => {
  const dir = tempTree({ "policies/p.yaml": `${policyFixture("require-team")}\n---\n${pods}`, "pods.yaml": pods });
  const io = recordingIo();
  assert.equal(await main(["apply", join(dir, "policies"), "-r", join(dir, "pods.yaml")], io), 2);
  assert.match(io.stderr.join("\n"), /p\.yaml: document 2 \(line \d+\): not a policy/);
});

test("in a folder, a kind that is a typo of a policy kind (ClusterPolcy) is not skipped: exit 2 with a did-you-mean", async () => {
  const typo = policyFixture("require-team").replace("kind: ClusterPolicy", "kind: ClusterPolcy");
  const dir = tempTree({ "policies/p.yaml": typo, "pods.yaml": pods });
  const io = recordingIo();
  assert.equal(await main(["apply", join(dir, "policies"), "-r", join(dir, "pods.yaml")], io), 2);
  assert.match(
    io.stderr.join("\n"),
    /p\.yaml: document 1 \(line 1\): not a policy: kind "ClusterPolcy" with apiVersion "kyverno\.io\/v1" is not a Kyverno policy; did you mean kind "ClusterPolicy"\?/,
  );
});
