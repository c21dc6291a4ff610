/**
 * A test file's httpPayloads: the HTTP-mode ValidatingPolicies run on each request, and the rows
 * find their results as Kyverno's test finds them (checked beside `kyverno test`, Kyverno 1.19.0:
 * the same rows, results and messages). envoyPayloads: envoy-payloads.test.ts.
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
metadata: {name: http-check}
spec:
  evaluation: {mode: HTTP}
  variables: [{name: auth, expression: 'object.attributes.Header("authorization")'}]
  validations:
    - expression: 'size(variables.auth) == 0 ? http.Denied("missing auth").Response() : null'
    - expression: http.Allowed().Response()
---
apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: only-post}
spec:
  evaluation: {mode: HTTP}
  matchConditions: [{name: post, expression: 'object.attributes.method == "POST"'}]
  validations:
    - expression: 'object.attributes.host == "ok.example" ? http.Allowed().Response() : http.Denied("bad host " + object.attributes.host).Response()'
`;
const allow = { attributes: { method: "GET", header: { Authorization: ["Bearer x"] }, host: "ok.example" } };
const deny = { attributes: { method: "POST", header: {}, host: "bad.example" } };

async function suiteOf(testFile: string, files: Record<string, string> = {}) {
  const dir = tempTree({
    "policies.yaml": policies,
    "allow.json": JSON.stringify(allow),
    "deny.json": JSON.stringify(deny),
    "kyverno-test.yaml": testFile,
    ...files,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  return { suite, dir };
}

test("each HTTP-mode policy runs on each httpPayloads request; a row naming no resource checks every payload", async () => {
  const { suite } = await suiteOf(`apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: http}
policies: [policies.yaml]
httpPayloads: [allow.json, deny.json]
results:
  - {policy: http-check, result: pass}
  - {policy: http-check, resources: [deny.json], result: fail}
  - {policy: only-post, resources: [allow.json], result: skip}
  - {policy: only-post, resources: [deny.json], result: fail}
`);
  assert.equal(suite?.error, undefined, suite?.error);
  assert.deepEqual(
    suite?.results.map((r) => [r.policy, r.resource, r.ok, r.actual, r.message]),
    [
      ["http-check", "allow.json", true, "pass", "request allowed"],
      ["http-check", "deny.json", false, "fail", "request denied, reason: missing auth"],
      ["http-check", "deny.json", true, "fail", "request denied, reason: missing auth"],
      ["only-post", "allow.json", true, "skip", "request does not match"],
      ["only-post", "deny.json", true, "fail", "request denied, reason: bad host bad.example"],
    ],
  );
  // Kyverno says it loads them, and does not count the HTTP-mode policies among those it applies.
  assert.ok(suite !== undefined);
  assert.match(renderLoading(suite), /Loading HTTP payloads \.\.\.\n.*\n {2}Applying 0 policies to 0 resources/);
});

test("an httpPayloads file that cannot be read as a request stops the suite, naming the file", async () => {
  const { suite } = await suiteOf(
    `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: http}
policies: [policies.yaml]
httpPayloads: [bad.json]
results:
  - {policy: http-check, result: pass}
`,
    { "bad.json": JSON.stringify({ attributes: { contentLength: "12" } }) },
  );
  assert.match(
    suite?.error ?? "",
    /httpPayloads: failed to parse HTTP payload from .*bad\.json: json: cannot unmarshal string into Go struct field CheckRequestAttributes\.attributes\.contentLength of type int64/,
  );
});
