/**
 * A Test file's `globalContextEntries`, as Kyverno's CLI reads them (`GlobalContextEntryValue`: name,
 * data, fieldPath, projections; resources and resourceFiles for entries backed by Kubernetes objects):
 * the value a `globalReference` entry and CEL `globalContext.Get` see.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../offline/offline-engine.js";
import { tempTree } from "../../../test/support/temp-dir.js";
import { runSuites } from "./run-suite.js";

/** Denies a Pod whose replica budget (from the global entry) is under 3; the message shows what it read. */
const classic = (reference: string, jmesPath = "") => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: budget}
spec:
  validationFailureAction: Enforce
  rules:
    - name: read
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: budget
          globalReference: {name: "${reference}"${jmesPath === "" ? "" : `, jmesPath: "${jmesPath}"`}}
      validate:
        message: "budget {{ budget }}"
        deny: {conditions: {any: [{key: "{{ budget }}", operator: LessThan, value: 3}]}}
`;
const cel = `apiVersion: policies.kyverno.io/v1
kind: ValidatingPolicy
metadata: {name: cel-budget}
spec:
  validationActions: [Deny]
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [pods]}]
  validations:
    - expression: "globalContext.Get('deployments', 'count') >= 3"
      message: too few deployments
`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx}]}
`;
const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: shop}
spec: {replicas: 1}
`;

async function run(policy: string, entries: string, extra: Record<string, string> = {}) {
  const dir = tempTree({
    "policy.yaml": policy,
    "resources.yaml": pod,
    ...extra,
    "kyverno-test.yaml": `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: globals}
policies: [policy.yaml]
resources: [resources.yaml]
globalContextEntries:
${entries}
results:
  - {policy: ${policy.includes("ValidatingPolicy") ? "cel-budget" : "budget, rule: read"}, resources: [web], result: pass}
`,
  });
  const [suite] = await runSuites(join(dir, "kyverno-test.yaml"), offlineEngine);
  return suite;
}

/** What the suite found for the Pod, as `policy result: message`. */
async function results(policy: string, entries: string, extra: Record<string, string> = {}): Promise<string[]> {
  const suite = await run(policy, entries, extra);
  assert.equal(suite?.error, undefined, suite?.error);
  return (suite?.results ?? []).map((r) => `${r.policy} ${r.actual ?? "none"}: ${r.message}`);
}

describe("bylaw test: globalContextEntries", () => {
  test("data is the entry's value; fieldPath picks the root first", async () => {
    assert.deepEqual(await results(classic("limits"), "  - {name: limits, data: 5}"), [
      "budget pass: validation rule 'read' passed.",
    ]);
    assert.deepEqual(
      await results(classic("limits"), "  - {name: limits, data: {shop: {max: 2}}, fieldPath: shop.max}"),
      ["budget fail: budget 2"],
    );
  });

  test("projections: the value is the map of projection names; <entry>.<projection> names one", async () => {
    const entry =
      "  - name: limits\n    data: {teams: [{name: a, max: 4}, {name: b, max: 1}]}\n    projections: [{name: a, path: \"teams[?name=='a'].max | [0]\"}, {name: b, path: \"teams[?name=='b'].max | [0]\"}]";
    assert.deepEqual(await results(classic("limits.b"), entry), ["budget fail: budget 1"]);
    assert.deepEqual(await results(classic("limits", "a"), entry), ["budget pass: validation rule 'read' passed."]);
  });

  test("resources and resourceFiles are the objects of a Kubernetes-backed entry, as a list; CEL globalContext.Get reads a projection", async () => {
    const entry =
      '  - name: deployments\n    resources: [{apiVersion: apps/v1, kind: Deployment, metadata: {name: inline}}]\n    resourceFiles: [deployments.yaml]\n    projections: [{name: count, path: "length(@)"}]';
    const files = { "deployments.yaml": `${deployment("one")}---\n${deployment("two")}` };
    assert.deepEqual(await results(cel, entry, files), ["cel-budget pass: success"]);
    const two =
      '  - name: deployments\n    resourceFiles: [deployments.yaml]\n    projections: [{name: count, path: "length(@)"}]';
    assert.deepEqual(await results(cel, two, files), ["cel-budget fail: too few deployments"]);
  });

  test("a name the given entries lack is Kyverno's load error (the store exists), not a skipped entry", async () => {
    const [line] = await results(classic("missing"), "  - {name: limits, data: 5}");
    assert.match(line ?? "", /^budget error: .*failed to load context entry budget: failed to fetch entry key=missing/);
  });

  test("a projection whose JMESPath does not compile makes the reading rule an error naming the entry, not a value", async () => {
    const [line] = await results(
      classic("limits.a"),
      '  - {name: limits, data: {a: 1}, projections: [{name: a, path: "a["}]}',
    );
    assert.match(line ?? "", /^budget error: .*globalContextEntries limits: projection a: /);
  });

  test("an entry without a name, a projection without a path, or with no data or objects fails the suite naming it", async () => {
    const noName = await run(classic("x"), "  - {data: 1}");
    assert.match(noName?.error ?? "", /globalContextEntries\[0\]: name is required/);
    const noPath = await run(classic("x"), "  - {name: x, data: 1, projections: [{name: p}]}");
    assert.match(noPath?.error ?? "", /globalContextEntries\[0\] \(x\): projections\[0\]: path is required/);
    const nothing = await run(classic("x"), "  - {name: x}");
    assert.match(nothing?.error ?? "", /globalContextEntries\[0\] \(x\): data, resources or resourceFiles is required/);
    const missingFile = await run(classic("x"), "  - {name: x, resourceFiles: [nope.yaml]}");
    assert.match(missingFile?.error ?? "", /globalContextEntries\[0\] \(x\): resourceFiles: .*nope\.yaml/);
  });
});
