/**
 * ValidatingAdmissionPolicy bindings when a test gave clusterResources: Kyverno 1.19's test then runs
 * with `Cluster: true` and a fake client (cmd/cli/kubectl-kyverno commands/test `runTest`), so
 * pkg/admissionpolicy `Validate` takes `processVAPWithClient`, reading params through `CollectParams`.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { err, ok, type JsonObject, type JsonValue } from "../../index.js";
import { createEngine } from "../../engine.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { pod } from "../../../../test/support/builders.js";

const namespaces: Record<string, JsonObject> = {
  team: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team", labels: { env: "prod" } } },
  lab: { apiVersion: "v1", kind: "Namespace", metadata: { name: "lab", labels: { env: "dev" } } },
};

function configMap(name: string, namespace: string, max: string, labels: JsonObject = {}): JsonObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data: { max } };
}

/** An engine over a fake cluster: Namespaces answer getResource, every object answers paramObjects(kind). */
function clusterEngine(objects: readonly JsonObject[], clusterGiven = true): ReturnType<typeof createEngine> {
  const ports = fakePorts();
  return createEngine({
    ...ports,
    context: {
      ...ports.context,
      clusterGiven,
      getResource: (r) =>
        r.resource === "namespaces" && namespaces[r.name] !== undefined
          ? ok(namespaces[r.name] as JsonObject)
          : err("not-found", `namespaces "${r.name}" not found`),
      paramObjects: (kind) =>
        ok(
          kind === undefined
            ? objects
            : objects.filter((o) => o["kind"] === kind.kind && o["apiVersion"] === kind.apiVersion),
        ),
    },
  });
}

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};
const maxContainers = (extra: JsonObject = {}): JsonObject => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingAdmissionPolicy",
  metadata: { name: "vap" },
  spec: {
    paramKind: { apiVersion: "v1", kind: "ConfigMap" },
    matchConstraints: podRules,
    validations: [
      {
        expression: "size(object.spec.containers) <= int(params.data.max)",
        messageExpression: "'at most ' + params.data.max",
      },
    ],
    ...extra,
  },
});

function binding(name: string, spec: JsonObject): JsonObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName: "vap", validationActions: ["Deny"], ...spec },
  };
}

function compile(engine: ReturnType<typeof createEngine>, doc: JsonObject, bindings: JsonValue[]): CompiledPolicy {
  const r = engine.compile(doc, { bindings });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function run(engine: ReturnType<typeof createEngine>, p: CompiledPolicy, resource: JsonObject): [string, string][] {
  return engine
    .validate(p, { resource, operation: "CREATE", namespaceLabels: {} })
    .rules.map((r) => [r.status, r.message]);
}

const three = { containers: [1, 2, 3].map((i) => ({ name: `c${i}`, image: "nginx" })) };
const objects = [
  configMap("limits", "team", "2"),
  configMap("limits", "lab", "5"),
  configMap("a", "team", "1", { tier: "x" }),
  configMap("b", "team", "9", { tier: "x" }),
];

describe("bylaw test with clusterResources: Kyverno's processVAPWithClient", () => {
  test("params by name are read in the request's namespace, or paramRef.namespace (CollectParams)", () => {
    const engine = clusterEngine(objects);
    const p = compile(engine, maxContainers(), [binding("b", { paramRef: { name: "limits" } })]);
    assert.deepEqual(run(engine, p, pod({ name: "x", namespace: "team", ...three })), [["fail", "at most 2"]]);
    assert.deepEqual(run(engine, p, pod({ name: "x", namespace: "lab", ...three })), [["pass", ""]]);
    const pinned = compile(engine, maxContainers(), [binding("b", { paramRef: { name: "limits", namespace: "lab" } })]);
    assert.deepEqual(run(engine, pinned, pod({ name: "x", namespace: "team", ...three })), [["pass", ""]]);
  });

  test("the policy's matchConstraints decide too, with the cluster Namespace's labels", () => {
    const engine = clusterEngine(objects);
    const p = compile(
      engine,
      maxContainers({ matchConstraints: { ...podRules, namespaceSelector: { matchLabels: { env: "prod" } } } }),
      [binding("b", { paramRef: { name: "limits" } })],
    );
    assert.deepEqual(run(engine, p, pod({ name: "x", namespace: "team", ...three })), [["fail", "at most 2"]]);
    assert.deepEqual(run(engine, p, pod({ name: "x", namespace: "lab", ...three })), []);
    // Offline (no clusterResources) the policy's matchConstraints are not read when a binding names it.
    const offline = clusterEngine(objects, false);
    const q = compile(
      offline,
      maxContainers({
        matchConstraints: {
          resourceRules: [
            { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
          ],
        },
      }),
      [binding("b", { paramRef: { name: "limits" } })],
    );
    assert.equal(run(offline, q, pod({ name: "x", namespace: "team", ...three })).length, 1);
    const online = clusterEngine(objects);
    const r = compile(
      online,
      maxContainers({
        matchConstraints: {
          resourceRules: [
            { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
          ],
        },
      }),
      [binding("b", { paramRef: { name: "limits" } })],
    );
    assert.deepEqual(run(online, r, pod({ name: "x", namespace: "team", ...three })), []);
  });

  test("one object a selector picks is params itself; several are one list object", () => {
    const engine = clusterEngine(objects);
    const one = compile(engine, maxContainers(), [
      binding("b", { paramRef: { selector: { matchLabels: { tier: "x" } }, namespace: "team" } }),
    ]);
    const [row] = run(engine, one, pod({ name: "x", namespace: "team", ...three }));
    assert.equal(row?.[0], "error", "two objects: params is {items}, so params.data is an evaluation error");
    const single = clusterEngine([configMap("a", "team", "1", { tier: "x" })]);
    const s = compile(single, maxContainers(), [
      binding("b", { paramRef: { selector: { matchLabels: { tier: "x" } } } }),
    ]);
    assert.deepEqual(run(single, s, pod({ name: "x", namespace: "team", ...three })), [["fail", "at most 1"]]);
  });

  test("what Kyverno's CLI cannot evaluate is an error naming the binding, never a pass", () => {
    const engine = clusterEngine(objects);
    const cases: [JsonObject, JsonObject, RegExp][] = [
      [maxContainers(), { name: "missing" }, /binding b: ConfigMap \(v1\) "missing" not found in namespace team/],
      [
        maxContainers(),
        { selector: { matchLabels: { tier: "none" } }, parameterNotFoundAction: "Deny" },
        /binding b: no params found/,
      ],
      [
        maxContainers(),
        { selector: { matchLabels: { tier: "none" } } },
        /binding b: .*cannot evaluate a binding whose paramRef finds nothing/,
      ],
      [
        maxContainers({ paramKind: null }),
        { name: "limits" },
        /binding b: paramRef is set but the policy has no spec\.paramKind/,
      ],
    ];
    for (const [policy, paramRef, message] of cases) {
      const p = compile(engine, policy, [binding("b", { paramRef })]);
      const [row] = run(engine, p, pod({ name: "x", namespace: "team", ...three }));
      assert.equal(row?.[0], "error", JSON.stringify(paramRef));
      assert.match(row?.[1] ?? "", message);
    }
  });

  test("a cluster-scoped resource: params as the API server reads them; a namespaced paramKind without paramRef.namespace finds none, and parameterNotFoundAction decides", () => {
    const engine = clusterEngine(objects);
    const nsRules = {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
    };
    const labelCount = maxContainers({
      matchConstraints: nsRules,
      validations: [
        {
          expression: "size(object.metadata.labels) <= int(params.data.max)",
          messageExpression: "'at most ' + params.data.max + ' labels'",
        },
      ],
    });
    const ns = { apiVersion: "v1", kind: "Namespace", metadata: { name: "new", labels: { a: "1", b: "2", c: "3" } } };
    const pinned = compile(engine, labelCount, [binding("b", { paramRef: { name: "limits", namespace: "team" } })]);
    assert.deepEqual(run(engine, pinned, ns), [["fail", "at most 2 labels"]]);
    const deny = compile(engine, labelCount, [
      binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } }),
    ]);
    assert.deepEqual(run(engine, deny, ns), [
      [
        "error",
        "binding b: no params found for policy binding with `Deny` parameterNotFoundAction (a cluster-scoped resource, and a namespaced paramKind without paramRef.namespace)",
      ],
    ]);
    const allow = compile(engine, labelCount, [
      binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Allow" } }),
    ]);
    assert.deepEqual(run(engine, allow, ns), [], "the binding is skipped: no result");
  });

  test("a namespace missing from the cluster objects is an error naming it where the policy matches", () => {
    const engine = clusterEngine(objects);
    const p = compile(engine, maxContainers(), [binding("b", {})]);
    const [row] = run(engine, p, pod({ name: "x", namespace: "ghost", ...three }));
    assert.equal(row?.[0], "error");
    assert.match(row?.[1] ?? "", /namespace ghost: namespaces "ghost" not found/);
    // A resource the policy does not match gets no result, as in Kyverno.
    assert.deepEqual(
      run(engine, p, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "ghost" } }),
      [],
    );
  });
});
