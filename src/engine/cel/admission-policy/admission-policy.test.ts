/** Kubernetes ValidatingAdmissionPolicy and its bindings through the engine: matching, params, results as Kyverno's CLI reports them. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ok, type JsonObject, type JsonValue } from "../../index.js";
import { createEngine } from "../../engine.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { EngineRequest } from "../../pipeline/types.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { pod } from "../../../../test/support/builders.js";

/** An engine whose ContextSources list the given objects (as a test's paramResources answer). */
function engineWith(objects: readonly JsonObject[] = []): ReturnType<typeof createEngine> {
  const ports = fakePorts();
  return createEngine({ ...ports, context: { ...ports.context, paramObjects: () => ok(objects) } });
}

const podRules = { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }] };
const maxContainers = {
  paramKind: { apiVersion: "v1", kind: "ConfigMap" },
  matchConstraints: podRules,
  validations: [{ expression: "size(object.spec.containers) <= int(params.data.max)", messageExpression: "'at most ' + params.data.max + ' containers'" }],
};

function vap(spec: JsonObject, name = "vap"): JsonObject {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", metadata: { name }, spec };
}

function binding(name: string, spec: JsonObject): JsonObject {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicyBinding", metadata: { name }, spec: { policyName: "vap", validationActions: ["Deny"], ...spec } };
}

function configMap(name: string, namespace: string | undefined, data: JsonObject, labels: JsonObject = {}): JsonObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, ...(namespace !== undefined ? { namespace } : {}), labels }, data };
}

function compile(engine: ReturnType<typeof createEngine>, doc: JsonObject, bindings: JsonValue[] = []): CompiledPolicy {
  const r = engine.compile(doc, { bindings });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

type Row = [string, string, string];

function run(engine: ReturnType<typeof createEngine>, p: CompiledPolicy, resource: JsonObject, extra: Partial<EngineRequest> = {}): Row[] {
  return engine.validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra }).rules.map((r) => [r.rule, r.status, r.message]);
}

function containers(n: number): JsonObject[] {
  return Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1" }));
}

describe("ValidatingAdmissionPolicy without a binding (Kyverno's CLI evaluates it on its own)", () => {
  const engine = engineWith();
  const p = compile(engine, vap({ matchConstraints: podRules, validations: [{ expression: "object.metadata.name.startsWith('ok')", message: "name must start with ok" }, { expression: "!has(object.spec.hostNetwork)" }] }));

  test("results are named after the policy: pass with no message, fail with the validation's message", () => {
    assert.deepEqual(run(engine, p, pod("ok-1")), [["vap", "pass", ""]]);
    assert.deepEqual(run(engine, p, pod("bad")), [["vap", "fail", "name must start with ok"]]);
    assert.deepEqual(run(engine, p, { ...pod("ok-2"), spec: { hostNetwork: true, containers: [] } }), [["vap", "fail", "failed expression: !has(object.spec.hostNetwork)"]]);
    assert.equal(p.admissionPolicy, true);
    assert.equal(p.rules[0]?.action, "Enforce");
  });

  test("a resource outside matchConstraints gets no result", () => {
    assert.deepEqual(run(engine, p, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } }), []);
    assert.deepEqual(run(engine, p, pod("bad"), { operation: "DELETE", oldResource: pod("bad") }), []);
  });

  test("matchConditions not met skip; an error in them is an error; messageExpression wins over message", () => {
    const q = compile(engine, vap({
      matchConstraints: podRules,
      matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
      variables: [{ name: "n", expression: "size(object.spec.containers)" }],
      validations: [{ expression: "variables.n < 2", message: "static", messageExpression: "'has ' + string(variables.n) + ' containers'" }],
    }));
    assert.deepEqual(run(engine, q, pod("a", { namespace: "kube-system", containers: containers(3) })), [["vap", "skip", "match conditions aren't met"]]);
    assert.deepEqual(run(engine, q, pod("a", { containers: containers(3) })), [["vap", "fail", "has 3 containers"]]);
    const broken = compile(engine, vap({ matchConstraints: podRules, matchConditions: [{ name: "x", expression: "object.spec.nope == 1" }], validations: [{ expression: "true" }] }));
    const [row] = run(engine, broken, pod("a"));
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /^expression 'object\.spec\.nope == 1' resulted in error: /);
  });

  test("an evaluation error is an error naming the expression; a failing variable names itself", () => {
    const q = compile(engine, vap({ matchConstraints: podRules, variables: [{ name: "bad", expression: "object.spec.nope" }], validations: [{ expression: "variables.bad == 1" }] }));
    const [row] = run(engine, q, pod("a"));
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /^expression 'variables\.bad == 1' resulted in error: composited variable "bad" fails to evaluate: /);
  });

  test("an expression that does not compile is an error naming the policy, the field and the position", () => {
    const q = compile(engine, vap({ matchConstraints: podRules, validations: [{ expression: "object.spec.containers.all(c, " }] }));
    const [row] = run(engine, q, pod("a"));
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /policy vap: spec\.validations\[0\]\.expression: compilation failed: .*1:/);
  });

  test("a policy without params evaluates params as null, as Kyverno's CLI does", () => {
    const q = compile(engine, vap(maxContainers));
    const [row] = run(engine, q, pod("a"));
    assert.equal(row?.[1], "error");
  });

  test("invalid fields fail the load", () => {
    assert.equal(engine.compile(vap({ matchConstraints: podRules, failurePolicy: "Never", validations: [{ expression: "true" }] })).ok, false);
    assert.equal(engine.compile(vap({ validations: [{ expression: "true" }] })).ok, false);
    assert.equal(engine.compile(vap({ matchConstraints: podRules, validations: [{ expression: "true", reason: "Teapot" }] })).ok, false);
  });
});

describe("ValidatingAdmissionPolicyBinding", () => {
  test("each binding naming the policy is a rule; matchResources narrow it; other policies' bindings are ignored", () => {
    const engine = engineWith();
    const spec = { matchConstraints: podRules, validations: [{ expression: "object.metadata.name.startsWith('ok')", message: "bad name" }] };
    const p = compile(engine, vap(spec), [
      binding("prod", { matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } } }),
      binding("warn-all", { validationActions: ["Warn", "Audit"] }),
      { ...binding("other", {}), spec: { policyName: "someone-else", validationActions: ["Deny"] } },
    ]);
    assert.deepEqual(p.rules.map((r) => [r.name, r.action]), [["vap", "Enforce"], ["vap", "Audit"]]);
    assert.deepEqual(run(engine, p, pod("bad"), { namespaceLabels: { env: "dev" } }), [["vap", "fail", "bad name"]]);
    assert.deepEqual(run(engine, p, pod("bad"), { namespaceLabels: { env: "prod" } }), [["vap", "fail", "bad name"], ["vap", "fail", "bad name"]]);
    const results = engine.validate(p, { resource: pod("bad"), operation: "CREATE", namespaceLabels: { env: "prod" } }).rules;
    assert.deepEqual(results.map((r) => [r.properties?.["binding"], r.action]), [["prod", "Enforce"], ["warn-all", "Audit"]]);
  });

  test("a binding's matchResources must match too: a cluster-scoped policy match narrowed to a namespace", () => {
    const engine = engineWith();
    const p = compile(engine, vap({ matchConstraints: podRules, validations: [{ expression: "false" }] }), [binding("team", { matchResources: { namespaceSelector: { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["team"] }] } } })]);
    assert.deepEqual(run(engine, p, pod("a", { namespace: "team" }), { namespaceLabels: { "kubernetes.io/metadata.name": "team" } }).map((r) => r[1]), ["fail"]);
    assert.deepEqual(run(engine, p, pod("a", { namespace: "other" }), { namespaceLabels: { "kubernetes.io/metadata.name": "other" } }), []);
  });

  test("an invalid binding fails the load naming it and the field", () => {
    const engine = engineWith();
    const check = (b: JsonObject, field: RegExp): void => {
      const r = engine.compile(vap(maxContainers), { bindings: [b] });
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.problems.map((p) => `${p.path}: ${p.message}`).join("\n"), field);
    };
    check({ ...binding("b", {}), spec: { policyName: "vap" } }, /spec\.validationActions: .*ValidatingAdmissionPolicyBinding b: .*Required value/);
    check(binding("b", { validationActions: ["Deny", "Warn"] }), /Deny and Warn may not be used together/);
    check(binding("b", { paramRef: { name: "x", selector: {}, parameterNotFoundAction: "Deny" } }), /mutually exclusive/);
    check(binding("b", { paramRef: { name: "x" } }), /parameterNotFoundAction: .*Required value/);
  });

  test("a binding alone is not a policy", () => {
    const r = engineWith().compile(binding("b", {}));
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.problems[0]?.message ?? "", /not a policy: it binds the ValidatingAdmissionPolicy/);
  });
});

describe("params", () => {
  const objects = [
    configMap("limits", "team", { max: "2" }),
    configMap("limits", "other", { max: "5" }),
    configMap("strict", "shared", { max: "1" }, { tier: "strict" }),
    configMap("loose", "shared", { max: "4" }, { tier: "loose" }),
  ];
  const engine = engineWith(objects);
  const withRef = (paramRef: JsonObject, extra: JsonObject = {}): CompiledPolicy => compile(engine, vap({ ...maxContainers, ...extra }), [binding("b", { paramRef })]);

  test("by name, in the request's namespace when paramRef.namespace is unset", () => {
    const p = withRef({ name: "limits", parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, p, pod("a", { namespace: "team", containers: containers(3) })), [["vap", "fail", "at most 2 containers"]]);
    assert.deepEqual(run(engine, p, pod("a", { namespace: "other", containers: containers(3) })), [["vap", "pass", ""]]);
  });

  test("paramRef.namespace picks the namespace", () => {
    const p = withRef({ name: "limits", namespace: "other", parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, p, pod("a", { namespace: "team", containers: containers(3) })), [["vap", "pass", ""]]);
  });

  test("a selector evaluates the policy once per object: any failing one fails", () => {
    const p = withRef({ namespace: "shared", selector: { matchExpressions: [{ key: "tier", operator: "Exists" }] }, parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, p, pod("a", { containers: containers(2) })), [["vap", "fail", "at most 1 containers"]]);
    const loose = withRef({ namespace: "shared", selector: { matchLabels: { tier: "loose" } }, parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, loose, pod("a", { containers: containers(2) })), [["vap", "pass", ""]]);
  });

  test("none found: Allow skips the binding, Deny is an error under failurePolicy Fail and a skip under Ignore", () => {
    const allow = withRef({ name: "missing", parameterNotFoundAction: "Allow" });
    const [skipped] = run(engine, allow, pod("a", { namespace: "team" }));
    assert.equal(skipped?.[1], "skip");
    assert.match(skipped?.[2] ?? "", /no ConfigMap \(v1\) missing in namespace team; the binding's parameterNotFoundAction Allow skips it/);
    const deny = withRef({ name: "missing", parameterNotFoundAction: "Deny" });
    const [denied] = run(engine, deny, pod("a", { namespace: "team" }));
    assert.equal(denied?.[1], "error");
    assert.match(denied?.[2] ?? "", /^failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction/);
    const ignored = withRef({ name: "missing", parameterNotFoundAction: "Deny" }, { failurePolicy: "Ignore" });
    assert.equal(run(engine, ignored, pod("a", { namespace: "team" }))[0]?.[1], "skip");
  });

  test("a namespaced paramKind for a cluster-scoped request without paramRef.namespace is a configuration error", () => {
    const p = compile(engine, vap({ ...maxContainers, matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }] }, validations: [{ expression: "true" }] }), [binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Allow" } })]);
    const [row] = run(engine, p, { apiVersion: "v1", kind: "Namespace", metadata: { name: "n" } });
    assert.deepEqual([row?.[1], row?.[2]], ["error", "failed to configure binding: cannot use namespaced paramRef in policy binding that matches cluster-scoped resources"]);
  });

  test("a port that cannot list objects is an error, never 'not found'", () => {
    const bare = createEngine(fakePorts());
    const p = compile(bare, vap(maxContainers), [binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Allow" } })]);
    const [row] = run(bare, p, pod("a", { namespace: "team" }));
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /params of kind ConfigMap \(v1\): no parameter objects were given/);
  });

  test("objects of a namespaced built-in kind written without a namespace are in default", () => {
    const e = engineWith([configMap("limits", undefined, { max: "1" })]);
    const p = compile(e, vap(maxContainers), [binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Deny" } })]);
    assert.deepEqual(run(e, p, pod("a", { containers: containers(2) })), [["vap", "fail", "at most 1 containers"]]);
  });
});
