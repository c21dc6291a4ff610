/**
 * A MutatingPolicy in a background scan, as Kyverno's reports controller scans it: its mutation
 * applied to the stored object; a pass whose patch would change it fails "mutation is not applied".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinTypedKinds, createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { pod } from "../../../test/support/builders.js";
import { backgroundPolicies, scanResource } from "./scan.js";

const engine = createEngine({ ...fakePorts(), typedKinds: builtinTypedKinds });

function mutatingPolicy(name: string, expression: string, spec: JsonObject = {}): CompiledPolicy {
  const c = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name },
    spec: {
      autogen: { podControllers: { controllers: [] } },
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
      ...spec,
    },
  });
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

const addFoo = mutatingPolicy("add-foo", 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}');
const rows = (resource: JsonObject, policies: readonly CompiledPolicy[]) =>
  scanResource({ engine, policies: backgroundPolicies(policies), resource, namespaceLabels: {} }).map((r) => [
    r.policy.name,
    r.rules.map((x) => `${x.type} ${x.status}: ${x.message}`),
  ]);

test("a stored object the mutation would still change fails 'mutation is not applied'; one it leaves alone passes", () => {
  assert.deepEqual(rows(pod({ name: "plain" }), [addFoo]), [["add-foo", ["Mutation fail: mutation is not applied"]]]);
  assert.deepEqual(rows(pod({ name: "done", labels: { foo: "bar" } }), [addFoo]), [
    ["add-foo", ["Mutation pass: success"]],
  ]);
});

test("an error stays an error, a matchConditions skip a skip; background disabled is not scanned", () => {
  const broken = mutatingPolicy("broken", "Object{metadata: Object.metadata{labels: {'x': object.spec.nothing}}}");
  const [row] = rows(pod({ name: "p" }), [broken]);
  assert.match(String(row?.[1]), /^Mutation error: /);
  const skipped = mutatingPolicy("skipped", 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}', {
    matchConditions: [{ name: "never", expression: "false" }],
  });
  assert.deepEqual(rows(pod({ name: "p" }), [skipped]), [["skipped", ["Mutation skip: skip"]]]);
  const off = mutatingPolicy("off", 'Object{metadata: Object.metadata{labels: {"foo": "bar"}}}', {
    evaluation: { background: { enabled: false } },
  });
  assert.deepEqual(backgroundPolicies([off]), []);
});

test("a field the kind does not declare is the policy's error in the scan too (typed as the webhook types it)", () => {
  const undeclared = mutatingPolicy("undeclared", 'Object{spec: Object.spec{nothing: "x"}}');
  const [row] = rows(pod({ name: "p" }), [undeclared]);
  assert.match(String(row?.[1]), /^Mutation error: .*field not declared in schema/);
});
