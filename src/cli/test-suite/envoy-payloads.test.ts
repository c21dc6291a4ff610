/**
 * A test file's envoyPayloads: the Envoy-mode ValidatingPolicies run on each check (Envoy's
 * CheckRequest, read as protobuf JSON), "Loading Envoy payloads ...", and the rows find their
 * results as Kyverno's test finds them (checked beside `kyverno test`, Kyverno 1.19.0: the same
 * payload rows, results and loading lines).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";
import { renderLoading } from "../commands/test/output.js";

const policies = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: envoy-check}
spec:
  evaluation: {mode: Envoy}
  variables: [{name: team, expression: 'object.attributes.request.http.headers[?"x-team"].orValue("")'}]
  validations:
    - expression: 'variables.team == "" ? envoy.Denied(401).WithBody("no team").Response() : null'
    - expression: envoy.Allowed().WithHeader("x-checked", "yes").Response()
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: only-post}
spec:
  evaluation: {mode: Envoy}
  matchConditions: [{name: post, expression: 'object.attributes.request.http.method == "POST"'}]
  validations:
    - expression: envoy.Denied(404).Response()
`;
const allow = { attributes: { request: { http: { method: "GET", headers: { "x-team": "a" } } } } };
const deny = { attributes: { request: { http: { method: "POST" } } } };

async function suiteOf(testFile: string, files: Record<string, string> = {}) {
  const dir = tempTree({
    "policies.yaml": policies,
    "allow.json": JSON.stringify(allow),
    "deny.json": JSON.stringify(deny),
    "kyverno-test.yaml": testFile,
    ...files,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  return suite;
}

test("each Envoy-mode policy runs on each envoyPayload; a row without resources checks each payload", async () => {
  const suite = await suiteOf(`apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: envoy}
policies: [policies.yaml]
envoyPayloads: [allow.json, deny.json]
results:
  - {policy: envoy-check, resources: [allow.json], result: pass}
  - {policy: envoy-check, resources: [deny.json], result: fail}
  - {policy: only-post, result: skip}
`);
  assert.equal(suite?.error, undefined, suite?.error);
  assert.deepEqual(suite?.warnings, []);
  assert.deepEqual(
    suite?.results.map((r) => [r.policy, r.resource, r.ok, r.actual, r.message]),
    [
      ["envoy-check", "allow.json", true, "pass", "request allowed"],
      ["envoy-check", "deny.json", true, "fail", "request denied with status code 401"],
      ["only-post", "allow.json", true, "skip", "request does not match"],
      ["only-post", "deny.json", false, "fail", "request denied with status code 404"],
    ],
  );
  assert.ok(suite !== undefined);
  const loading = renderLoading(suite);
  assert.match(loading, /\n {2}Loading Envoy payloads \.\.\.\n/);
  // As Kyverno's count, without the Envoy-mode policies.
  assert.match(loading, /Applying 0 policies to 0 resources/);
});

test("an envoyPayload that is not a CheckRequest stops the suite, naming the file and protojson's reason", async () => {
  const suite = await suiteOf(
    `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: envoy}
policies: [policies.yaml]
envoyPayloads: [bad.json]
results:
  - {policy: envoy-check, result: pass}
`,
    { "bad.json": '{"attributes": {"request": {"http": {"methodx": "GET"}}}}' },
  );
  assert.match(
    suite?.error ?? "",
    /envoyPayloads: failed to parse envoy payload from .*bad\.json: proto:\u00a0\(line 1:38\): unknown field "methodx"/,
  );
});
