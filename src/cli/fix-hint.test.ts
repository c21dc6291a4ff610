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
  await main(["test", dir, "-o", "json"], io);
  const errors = (JSON.parse(io.stdout.join("\n")) as { suites: { error: string }[] }).suites.map((s) => s.error);
  assert.match(errors[0] ?? "", /deprecated schema .*\(`bylaw fix test PATH` rewrites it\)/);
  assert.match(
    errors[1] ?? "",
    /patchedResource: unknown field \(use patchedResources; `bylaw fix test PATH` rewrites it\)/,
  );
});
