/**
 * A test file's httpPayloads and envoyPayloads are inputs Bylaw does not evaluate yet: the suite runs
 * and says so, naming the field, instead of passing over them without a word (their rows are Not found).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

test("httpPayloads and envoyPayloads are named in a warning, and their rows find no result", async () => {
  const dir = tempTree({
    "policy.yaml": `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: gateway}
spec:
  evaluation: {mode: HTTP}
  validations: [{expression: "object.attributes.request.http.method == 'GET'", message: only GET}]
`,
    "request.json": JSON.stringify({ attributes: { request: { http: { method: "POST" } } } }),
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: gateway}
policies: [policy.yaml]
httpPayloads: [request.json]
envoyPayloads: [request.json]
results:
  - {policy: gateway, result: fail}
`,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  assert.equal(suite?.error, undefined, suite?.error);
  const file = join(dir, "kyverno-test.yaml");
  assert.deepEqual(
    suite?.warnings.map((w) => w.replace(`${file}: `, "")),
    [
      "httpPayloads: Bylaw does not evaluate HTTP payloads yet; they were not run, and rows about them find no result",
      "envoyPayloads: Bylaw does not evaluate Envoy payloads yet; they were not run, and rows about them find no result",
    ],
  );
  assert.deepEqual(
    suite?.results.map((r) => [r.ok, r.reason]),
    [[false, "Not found"]],
  );
});
