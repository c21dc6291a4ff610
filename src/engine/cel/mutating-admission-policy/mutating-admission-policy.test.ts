/** Kubernetes MutatingAdmissionPolicy and its bindings through the engine, as Kyverno 1.19's CLI applies them offline. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { ok, type JsonObject, type JsonValue } from "../../index.js";
import { createEngine } from "../../engine.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";

/** An engine whose ContextSources list the given objects (as a test's paramResources answer). */
function engineWith(objects: readonly JsonObject[] = []): ReturnType<typeof createEngine> {
  const ports = fakePorts();
  return createEngine({ ...ports, context: { ...ports.context, paramObjects: () => ok(objects) } });
}

const V1BETA1 = "admissionregistration.k8s.io/v1beta1";
const configMaps = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
};
const stamp = (value: string) => ({
  patchType: "ApplyConfiguration",
  applyConfiguration: { expression: `Object{metadata: Object.metadata{labels: {"stamped": ${value}}}}` },
});

function map(spec: JsonObject, apiVersion = V1BETA1): JsonObject {
  return { apiVersion, kind: "MutatingAdmissionPolicy", metadata: { name: "map" }, spec };
}

function binding(name: string, spec: JsonObject = {}): JsonObject {
  return {
    apiVersion: V1BETA1,
    kind: "MutatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName: "map", ...spec },
  };
}

function configMap(name: string, labels: JsonObject = {}, data: JsonObject = { k: "v" }): JsonObject {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "default", labels }, data };
}

function compile(engine: ReturnType<typeof createEngine>, doc: JsonObject, bindings: JsonValue[] = []): CompiledPolicy {
  const r = engine.compile(doc, { bindings });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function problems(engine: ReturnType<typeof createEngine>, doc: JsonObject, bindings: JsonValue[] = []): string[] {
  const r = engine.compile(doc, { bindings });
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
}

function mutate(engine: ReturnType<typeof createEngine>, p: CompiledPolicy, resource: JsonObject) {
  const r = engine.mutate(p, { resource, operation: "CREATE", namespaceLabels: {} });
  return {
    rows: r.rules.map((x) => [x.rule, x.status, x.message, x.properties?.["binding"] ?? ""]),
    patched: r.patchedResource,
  };
}

const labelsOf = (o: JsonObject | undefined): unknown => (o?.["metadata"] as JsonObject | undefined)?.["labels"];

describe("MutatingAdmissionPolicy without a binding", () => {
  const engine = engineWith();
  const p = compile(engine, map({ matchConstraints: configMaps, mutations: [stamp('"yes"')] }));

  test("it compiles to the mutating family and mutates in the mutate phase only", () => {
    assert.equal(p.kind, "MutatingAdmissionPolicy");
    assert.equal(p.language, "mutating");
    assert.deepEqual(p.phases, ["mutate"]);
    assert.deepEqual(
      engine.validate(p, { resource: configMap("a"), operation: "CREATE", namespaceLabels: {} }).rules,
      [],
    );
  });

  test("matchConstraints decide; the result is named after the policy with Kyverno's message", () => {
    const out = mutate(engine, p, configMap("a", { team: "x" }));
    assert.deepEqual(out.rows, [["map", "pass", "mutation is successfully applied", ""]]);
    assert.deepEqual(labelsOf(out.patched), { team: "x", stamped: "yes" });
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: {} };
    assert.deepEqual(mutate(engine, p, pod).rows, [], "a Pod is outside matchConstraints: no result");
  });

  test("v1alpha1 and v1 are read too (Kyverno 1.19's CLI converts both to v1beta1); another version is an error for every resource", () => {
    for (const version of ["v1alpha1", "v1"]) {
      const p = compile(
        engine,
        map(
          { matchConstraints: configMaps, mutations: [stamp(`"${version}"`)] },
          `admissionregistration.k8s.io/${version}`,
        ),
      );
      assert.deepEqual(labelsOf(mutate(engine, p, configMap("a")).patched), { stamped: version }, version);
    }
    const v2 = compile(
      engine,
      map({ matchConstraints: configMaps, mutations: [] }, "admissionregistration.k8s.io/v2alpha1"),
    );
    const rows = engine.validate(v2, { resource: configMap("a"), operation: "CREATE", namespaceLabels: {} }).rules;
    assert.deepEqual(
      rows.map((r) => r.status),
      ["error"],
    );
  });
});

describe("MutatingAdmissionPolicy mutations", () => {
  const engine = engineWith();

  test("ApplyConfiguration merges maps and, as Kyverno's CLI (no schema), replaces lists whole", () => {
    const p = compile(
      engine,
      map({
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        mutations: [
          {
            patchType: "ApplyConfiguration",
            applyConfiguration: {
              expression:
                'Object{spec: Object.spec{containers: [Object.spec.containers{name: "sidecar", image: "busybox"}]}}',
            },
          },
        ],
      }),
    );
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "default" },
      spec: { containers: [{ name: "app", image: "nginx" }], restartPolicy: "Always" },
    };
    const out = mutate(engine, p, pod);
    assert.deepEqual(out.patched?.["spec"], {
      containers: [{ name: "sidecar", image: "busybox" }],
      restartPolicy: "Always",
    });
  });

  test("JSONPatch applies in order, each mutation seeing the object the previous one made", () => {
    const p = compile(
      engine,
      map({
        matchConstraints: configMaps,
        mutations: [
          stamp('"one"'),
          {
            patchType: "JSONPatch",
            jsonPatch: {
              expression:
                '[JSONPatch{op: "add", path: "/data/" + jsonpatch.escapeKey("a/b"), value: object.metadata.labels.stamped}]',
            },
          },
        ],
      }),
    );
    assert.deepEqual(mutate(engine, p, configMap("a")).patched?.["data"], { k: "v", "a/b": "one" });
  });

  test("variables are read by the mutations", () => {
    const p = compile(
      engine,
      map({
        matchConstraints: configMaps,
        variables: [{ name: "who", expression: "object.metadata.name + '-x'" }],
        mutations: [stamp("variables.who")],
      }),
    );
    assert.deepEqual(labelsOf(mutate(engine, p, configMap("a")).patched), { stamped: "a-x" });
  });

  test("matchConditions: false is a skip; an error is an error under Fail and a skip under Ignore", () => {
    const spec = {
      matchConstraints: configMaps,
      matchConditions: [{ name: "c", expression: "object.metadata.labels.mode == 'on'" }],
      mutations: [stamp('"y"')],
    };
    const fail = compile(engine, map(spec));
    assert.deepEqual(mutate(engine, fail, configMap("a", { mode: "off" })).rows, [
      ["map", "skip", "match conditions aren't met", ""],
    ]);
    assert.deepEqual(labelsOf(mutate(engine, fail, configMap("a", { mode: "off" })).patched), { mode: "off" });
    assert.equal(mutate(engine, fail, configMap("a")).rows[0]?.[1], "error", "no mode label: the condition errs");
    const ignore = compile(engine, map({ ...spec, failurePolicy: "Ignore" }));
    assert.deepEqual(mutate(engine, ignore, configMap("a")).rows, [["map", "skip", "match conditions aren't met", ""]]);
  });

  test("a mutation that fails to evaluate, or does not compile, is an error naming it, never a pass", () => {
    const bad = compile(engine, map({ matchConstraints: configMaps, mutations: [stamp("object.missing.field")] }));
    const out = mutate(engine, bad, configMap("a"));
    assert.equal(out.rows[0]?.[1], "error");
    assert.match(String(out.rows[0]?.[2]), /spec\.mutations\[0\]/);
    assert.equal(labelsOf(out.patched) !== undefined && "stamped" in (labelsOf(out.patched) as object), false);
    const broken = compile(engine, map({ matchConstraints: configMaps, mutations: [stamp("1 +")] }));
    const rows = mutate(engine, broken, configMap("a")).rows;
    assert.equal(rows[0]?.[1], "error");
    assert.match(
      String(rows[0]?.[2]),
      /MutatingAdmissionPolicy map: spec\.mutations\[0\]\.applyConfiguration\.expression/,
    );
  });

  test("fields outside the schema's enums, a paramKind without kind and missing matchConstraints fail the load", () => {
    const lines = problems(
      engine,
      map({
        matchConstraints: configMaps,
        failurePolicy: "Sometimes",
        reinvocationPolicy: "Always",
        paramKind: { apiVersion: "v1" },
        mutations: [{ patchType: "Merge" }],
      }),
    );
    assert.equal(lines.length, 4, lines.join("\n"));
    assert.ok(lines.some((l) => l.startsWith("spec.failurePolicy:")));
    assert.ok(lines.some((l) => l.startsWith("spec.reinvocationPolicy:")));
    assert.ok(lines.some((l) => l.startsWith("spec.paramKind:")));
    assert.ok(lines.some((l) => l.startsWith("spec.mutations[0].patchType:")));
    assert.ok(problems(engine, map({ mutations: [] })).some((l) => l.startsWith("spec.matchConstraints")));
  });
});

describe("MutatingAdmissionPolicy with bindings (Kyverno's CLI without a cluster)", () => {
  const engine = engineWith([
    configMap("params-a", { set: "s" }, { stamp: "from-a" }),
    configMap("params-b", { set: "s" }, { stamp: "from-b" }),
  ]);
  const spec = { matchConstraints: configMaps, paramKind: { apiVersion: "v1", kind: "ConfigMap" }, mutations: [] };

  test("the policy's matchConstraints are not consulted; each binding's matchResources are (none: every resource)", () => {
    const p = compile(engine, map({ ...spec, mutations: [stamp('"b"')] }), [binding("all")]);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "default" }, spec: {} };
    assert.deepEqual(mutate(engine, p, pod).rows, [["map", "pass", "mutation is successfully applied", "all"]]);
    const only = compile(engine, map({ ...spec, mutations: [stamp('"b"')] }), [
      binding("labelled", { matchResources: { ...configMaps, objectSelector: { matchLabels: { pick: "me" } } } }),
    ]);
    assert.deepEqual(mutate(engine, only, configMap("a")).rows, []);
    assert.equal(mutate(engine, only, configMap("a", { pick: "me" })).rows[0]?.[3], "labelled");
  });

  test("every matching binding runs in turn on what the previous made; the last one's result is the policy's", () => {
    const p = compile(
      engine,
      map({
        ...spec,
        mutations: [
          {
            patchType: "JSONPatch",
            jsonPatch: {
              expression:
                'has(object.metadata.annotations) ? [JSONPatch{op: "add", path: "/metadata/annotations/n", value: string(int(object.metadata.annotations.n) + 1)}] : [JSONPatch{op: "add", path: "/metadata/annotations", value: {"n": "1"}}]',
            },
          },
        ],
      }),
      [binding("first"), binding("second")],
    );
    const out = mutate(engine, p, configMap("a"));
    assert.deepEqual(out.rows, [["map", "pass", "mutation is successfully applied", "second"]]);
    assert.deepEqual((out.patched?.["metadata"] as JsonObject)["annotations"], { n: "2" });
  });

  test("paramRef.name takes the first object of that name; a selector hands every match over as one list", () => {
    const byName = compile(engine, map({ ...spec, mutations: [stamp("params.data.stamp")] }), [
      binding("b", { paramRef: { name: "params-b", parameterNotFoundAction: "Deny" } }),
    ]);
    assert.deepEqual(labelsOf(mutate(engine, byName, configMap("a")).patched), { stamped: "from-b" });
    const bySelector = compile(engine, map({ ...spec, mutations: [stamp("string(size(params.items))")] }), [
      binding("b", { paramRef: { selector: { matchLabels: { set: "s" } }, parameterNotFoundAction: "Allow" } }),
    ]);
    assert.deepEqual(labelsOf(mutate(engine, bySelector, configMap("a")).patched), { stamped: "2" });
  });

  test("no params found: an expression reading params is an error that says so", () => {
    const p = compile(engine, map({ ...spec, mutations: [stamp("params.data.stamp")] }), [
      binding("b", { paramRef: { name: "nowhere", parameterNotFoundAction: "Deny" } }),
    ]);
    const rows = mutate(engine, p, configMap("a")).rows;
    assert.equal(rows[0]?.[1], "error");
    assert.match(String(rows[0]?.[2]), /^binding b: .*no parameter object matched the binding's paramRef/);
  });

  test("a ValidatingAdmissionPolicyBinding of the same name binds nothing here; an invalid MAP binding fails the load", () => {
    const vapBinding = {
      ...binding("v"),
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
    };
    const p = compile(engine, map({ ...spec, mutations: [stamp('"x"')] }), [vapBinding]);
    assert.deepEqual(mutate(engine, p, configMap("a")).rows[0]?.[3], "", "unbound: matchConstraints decide");
    const lines = problems(engine, map(spec), [
      binding("bad", { paramRef: { name: "x", parameterNotFoundAction: "Maybe" } }),
    ]);
    assert.match(
      lines.join("\n"),
      /MutatingAdmissionPolicyBinding bad: spec\.paramRef\.parameterNotFoundAction: Unsupported value/,
    );
  });

  test("a binding document on its own is no policy, named as what it is", () => {
    const r = engine.compile(binding("alone"));
    assert.equal(r.ok, false);
    assert.match(r.ok ? "" : (r.problems[0]?.message ?? ""), /a MutatingAdmissionPolicyBinding is not a policy/);
  });
});
