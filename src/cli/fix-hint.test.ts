/** Deprecated usage that `bylaw fix policy|test` rewrites names the command in the message. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "./main.js";
import { recordingIo } from "../../test/support/fake-io.js";
import { tempTree } from "../../test/support/temp-dir.js";

const deprecatedOperator = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: old-operator}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "not prod"
        deny:
          conditions:
            any:
              - {key: "{{ request.object.metadata.name }}", operator: In, value: [prod]}
`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;

test("apply: a deprecated operator's warning names bylaw fix policy", async () => {
  const dir = tempTree({ "p.yaml": deprecatedOperator, "r.yaml": pod });
  const io = recordingIo();
  await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], io);
  assert.match(io.stderr.join("\n"), /Operator In has been deprecated.*\(`bylaw fix policy PATH` rewrites it\)/);
});

test("test: an old test schema and patchedResource name bylaw fix test", async () => {
  const dir = tempTree({
    "a/kyverno-test.yaml": "name: old\npolicies: []\nresources: []\nresults: []\n",
    "b/kyverno-test.yaml":
      "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: b}\npolicies: []\nresources: []\nresults:\n- {policy: p, rule: r, resources: [x], kind: Pod, result: pass, patchedResource: x.yaml}\n",
  });
  const io = recordingIo();
  await main(["test", dir, "-o", "bylaw-json"], io);
  const errors = (JSON.parse(io.stdout.join("\n")) as { suites: { error: string }[] }).suites.map((s) => s.error);
  assert.match(errors[0] ?? "", /deprecated schema .*\(`bylaw fix test PATH` rewrites it\)/);
  assert.match(
    errors[1] ?? "",
    /patchedResource: unknown field \(use patchedResources; `bylaw fix test PATH` rewrites it\)/,
  );
});

test("apply and test: the deprecated spec.generateExistingOnPolicyUpdate fails with the same text, naming generateExisting and bylaw fix policy", async () => {
  const text =
    "spec.generateExistingOnPolicyUpdate: remove the deprecated field spec.generateExistingOnPolicyUpdate; use generateExisting in each generate rule (spec.rules[*].generate.generateExisting) (`bylaw fix policy PATH` rewrites it)";
  const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: gen}
spec:
  generateExistingOnPolicyUpdate: true
  rules:
    - name: r
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate: {apiVersion: v1, kind: ConfigMap, name: c, namespace: default, data: {data: {a: b}}}
`;
  const dir = tempTree({
    "p.yaml": policy,
    "r.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n",
    "kyverno-test.yaml":
      "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [p.yaml]\nresources: [r.yaml]\nresults:\n- {policy: gen, rule: r, resources: [team], kind: Namespace, result: pass}\n",
  });
  const apply = recordingIo();
  assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], apply), 2);
  assert.ok(apply.stderr.join("\n").includes(`invalid policy gen: ${text}`), apply.stderr.join("\n"));
  const suite = recordingIo();
  assert.equal(await main(["test", dir, "-o", "bylaw-json"], suite), 2);
  assert.ok(suite.stderr.join("\n").includes(`invalid policy gen: ${text}`), suite.stderr.join("\n"));
  const rows = (JSON.parse(suite.stdout.join("\n")) as { suites: { results: { reason: string }[] }[] }).suites[0]
    ?.results;
  assert.equal(rows?.[0]?.reason, `Invalid policy: ${text}`);
});
