/**
 * A `variable` context entry gives Kyverno's outcome and text in each case (each checked beside
 * `kyverno apply` v1.19.0 on the same policy and Pod): a default stands in only for a query that
 * fails or gives null, never for variables that cannot be substituted.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "shop" },
  spec: { containers: [{ name: "app", image: "nginx" }] },
};

/** The one rule's result with the entry `v` as given; the rule denies when `v` is "never". */
function resultWith(variable: JsonObject): { status: string; message: string } {
  const c = engine.compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "vars" },
    spec: {
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context: [{ name: "v", variable }],
          validate: {
            failureAction: "Enforce",
            message: "v {{ v }}",
            deny: { conditions: { any: [{ key: "{{ v }}", operator: "Equals", value: "never" }] } },
          },
        },
      ],
    },
  });
  assert.ok(c.ok, JSON.stringify(c));
  const [rule] = engine.validate(c.policy, { resource: pod, operation: "CREATE", namespaceLabels: {} }).rules;
  assert.ok(rule !== undefined);
  return { status: rule.status, message: rule.message };
}

const PREFIX =
  "failed to check deny conditions: failed to substitute variables in condition key: failed to resolve v at path : ";

test("variables that cannot be substituted are the entry's error, whatever the default", () => {
  assert.deepEqual(
    resultWith({ value: "{{ request.object.metadata.labels.nothere }}", jmesPath: "@", default: "dflt" }),
    {
      status: "error",
      message: `${PREFIX}failed to substitute variables in context entry v {{ request.object.metadata.labels.nothere }}: failed to resolve request.object.metadata.labels.nothere at path : JMESPath query failed: Unknown key "labels" in path`,
    },
  );
  assert.deepEqual(resultWith({ jmesPath: "request.object.{{ request.object.metadata.labels.x }}", default: "d" }), {
    status: "error",
    message: `${PREFIX}failed to substitute variables in context entry v request.object.{{ request.object.metadata.labels.x }}: failed to resolve request.object.metadata.labels.x at path : JMESPath query failed: Unknown key "labels" in path`,
  });
  // A value that is not a string is named as Go's %v prints it.
  assert.match(
    resultWith({ value: { x: "{{ request.object.metadata.labels.zz }}" } }).message,
    /failed to substitute variables in context entry v map\[x:\{\{ request\.object\.metadata\.labels\.zz \}\}\]: failed to resolve request\.object\.metadata\.labels\.zz at path \/x: /,
  );
});

test("a failing query takes the default; without one it is Kyverno's 'failed to apply jmespath … to variable <nil>'", () => {
  assert.deepEqual(resultWith({ jmesPath: "request.object.metadata.labels.team", default: "dflt" }), {
    status: "pass",
    message: "validation rule 'r' passed.",
  });
  assert.deepEqual(resultWith({ jmesPath: "request.object.metadata.namespace2" }), {
    status: "error",
    message: `${PREFIX}failed to apply jmespath request.object.metadata.namespace2 to variable <nil>: JMESPath query failed: Unknown key "namespace2" in path`,
  });
  // Over a value, the query's own error, without "JMESPath query failed".
  assert.deepEqual(resultWith({ value: { a: 1 }, jmesPath: "b" }), {
    status: "error",
    message: `${PREFIX}failed to apply jmespath b to variable <nil>: Unknown key "b" in path`,
  });
});

test("null is an error: a query over a value giving null is one even with a default; false is a value", () => {
  const nil = {
    status: "error",
    message: `${PREFIX}failed to add context entry for variable v since it evaluated to nil`,
  };
  assert.deepEqual(resultWith({ value: { a: 1 }, jmesPath: "a.b.c" }), nil);
  assert.deepEqual(resultWith({ value: { a: 1 }, jmesPath: "a.b", default: "dflt" }), nil);
  assert.equal(resultWith({ jmesPath: "request.object.metadata.namespace2", default: "dflt" }).status, "pass");
  assert.equal(resultWith({ jmesPath: "`false`" }).status, "pass");
  assert.equal(resultWith({ value: "plain" }).status, "pass");
});

test("a variable whose value is null defines nothing: the policy is refused, as Kyverno's validation refuses it", () => {
  const c = engine.compile({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "vars" },
    spec: {
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context: [{ name: "v", variable: { value: null } }],
          validate: { message: "m", deny: {} },
        },
      ],
    },
  });
  assert.ok(!c.ok);
  assert.match(JSON.stringify(c.problems), /a variable must define a value or a jmesPath expression/);
});
