/** `bylaw test` with a test file's `exceptions:` (PolicyException files relative to the test). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuite } from "./run-suite.js";

/** The repository root: the nearest folder above this file holding the fixture (works from src, dist and .out). */
function fixture(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "test", "fixtures", "exceptions", "kyverno-test.yaml");
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find test/fixtures/exceptions above the test");
    dir = up;
  }
}

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  rules:
    - name: team
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        message: a team label is required
        pattern: {metadata: {labels: {team: "?*"}}}
`;
const configMap = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: default}
`;
const suite = (exceptions: string) => `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: s}
policies: [policy.yaml]
resources: [resources.yaml]
exceptions: [${exceptions}]
results:
  - {policy: require-team, rule: team, resources: [settings], kind: ConfigMap, result: fail}
`;
const validException = `apiVersion: kyverno.io/v2
kind: PolicyException
metadata: {name: other, namespace: default}
spec:
  exceptions: [{policyName: require-team, ruleNames: [team]}]
  match: {any: [{resources: {kinds: [ConfigMap], names: [not-this-one]}}]}
`;

async function run(files: Record<string, string>, exceptions: string) {
  const dir = tempTree({
    "policy.yaml": policy,
    "resources.yaml": configMap,
    ...files,
    "kyverno-test.yaml": suite(exceptions),
  });
  return runSuite(join(dir, "kyverno-test.yaml"), offlineEngine);
}

describe("bylaw test: exceptions", () => {
  test("an excepted resource is skipped, the others still fail (needs the engine to honour request.exceptions)", async () => {
    const result = await runSuite(fixture(), offlineEngine);
    assert.equal(result.error, undefined);
    // As kyverno test's rows: an entry's name stands for the Pod and the Deployment both named
    // important-tool (the Pod has no autogen- result: Excluded, a pass).
    assert.deepEqual(
      result.results.map((r) => [r.subject, r.resultRule ?? "", r.actual, r.reason]),
      [
        ["v1/Pod/delta/important-tool", "host-namespaces", "skip", "Ok"],
        ["apps/v1/Deployment/delta/important-tool", "autogen-host-namespaces", "skip", "Ok"],
        ["v1/Pod/delta/important-tool-nginx", "host-namespaces", "fail", "Ok"],
        ["v1/Pod/delta/other-tool", "host-namespaces", "fail", "Ok"],
        ["v1/Pod/delta/important-tool", "", null, "Excluded"],
        ["apps/v1/Deployment/delta/important-tool", "autogen-host-namespaces", "skip", "Ok"],
        ["apps/v1/Deployment/delta/other-deployment", "autogen-host-namespaces", "fail", "Ok"],
      ],
    );
    assert.ok(result.results.every((r) => r.ok));
  });

  test("an exception that does not select the resource changes nothing", async () => {
    const result = await run({ "exceptions.yaml": validException }, "exceptions.yaml");
    assert.equal(result.error, undefined);
    assert.deepEqual(
      result.results.map((r) => [r.actual, r.ok]),
      [["fail", true]],
    );
  });

  test("an invalid exception fails the suite, naming the file, the document and the field", async () => {
    const broken = `${validException}---\napiVersion: kyverno.io/v2\nkind: PolicyException\nmetadata: {name: broken}\nspec:\n  exceptions: [{ruleNames: [team]}]\n  match: {any: [{resources: {kinds: [Pod]}}]}\n`;
    const result = await run({ "exceptions.yaml": broken }, "exceptions.yaml");
    assert.match(
      result.error ?? "",
      /exceptions\.yaml: document 2 \(line \d+\): invalid PolicyException: spec\.exceptions\[0\]\.policyName: Required value/,
    );
    assert.ok(result.results.every((r) => !r.ok && r.reason === "Suite error"));
  });

  test("an unknown apiVersion is an error", async () => {
    const result = await run(
      { "exceptions.yaml": validException.replace("kyverno.io/v2", "kyverno.io/v9") },
      "exceptions.yaml",
    );
    assert.match(result.error ?? "", /apiVersion: expected kyverno\.io\/v2 or kyverno\.io\/v2beta1/);
  });

  test("a missing exceptions file fails the suite", async () => {
    const result = await run({}, "missing.yaml");
    assert.match(result.error ?? "", /exceptions: .*missing\.yaml/);
  });

  test("documents that are not PolicyExceptions are skipped with a warning", async () => {
    const result = await run({ "exceptions.yaml": `${configMap}---\n${validException}` }, "exceptions.yaml");
    assert.equal(result.error, undefined);
    assert.ok(
      result.warnings.some((w) => /exceptions\.yaml: document 1.*skipped: not a PolicyException/.test(w)),
      JSON.stringify(result.warnings),
    );
  });
});
