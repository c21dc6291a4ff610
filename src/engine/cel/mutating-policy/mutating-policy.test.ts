/** MutatingPolicy through the engine: ApplyConfiguration, JSONPatch, matchConditions, variables, autogen, namespaced scope. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import { builtinTypedKinds } from "../../mutate/typed/index.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import type { EngineRequest } from "../../pipeline/types.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { deployment, pod } from "../../../../test/support/builders.js";
import { applyConfiguration } from "./apply-configuration.js";
import { structLiteralsAsMaps } from "./struct-literals.js";

const engine = createEngine(fakePorts());
const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};

function mpol(spec: JsonObject, kind = "MutatingPolicy", namespace?: string): CompiledPolicy {
  const r = engine.compile({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "mp", ...(namespace === undefined ? {} : { namespace }) },
    spec: { matchConstraints: podRules, ...spec },
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

function run(p: CompiledPolicy, resource: JsonObject, extra: Partial<EngineRequest> = {}) {
  const r = engine.mutate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra });
  return { rules: r.rules.map((x) => [x.rule, x.status, x.message]), patched: r.patchedResource };
}

const apply = (expression: string) => ({ patchType: "ApplyConfiguration", applyConfiguration: { expression } });
const jsonPatch = (expression: string) => ({ patchType: "JSONPatch", jsonPatch: { expression } });
const addLabel = apply('Object{metadata: Object.metadata{labels: {"team": "a"}}}');

describe("MutatingPolicy", () => {
  test("an ApplyConfiguration adds a label: pass 'success' with rule '' and the patched resource", () => {
    const r = run(mpol({ mutations: [addLabel] }), pod({ name: "a", labels: { app: "x" } }));
    assert.deepEqual(r.rules, [["", "pass", "success"]]);
    assert.deepEqual((r.patched?.["metadata"] as JsonObject)["labels"], { app: "x", team: "a" });
  });

  test("a variable's error is the policy's, worded as cel's own (no variable prefix), as Kyverno reports it", () => {
    const p = mpol({
      variables: [{ name: "v", expression: "object.spec.nope" }],
      mutations: [apply("Object{metadata: Object.metadata{labels: {'x': string(variables.v)}}}")],
    });
    assert.deepEqual(run(p, pod({ name: "a" })).rules, [
      ["evaluation", "error", "failed to evaluate policy: no such key: nope"],
    ]);
  });

  test("a matchCondition cel-go types dyn fails to compile, as Kyverno's compiler refuses it; the resource is not patched", () => {
    const r = run(
      mpol({ matchConditions: [{ name: "c", expression: "object.metadata.name" }], mutations: [addLabel] }),
      pod({ name: "a" }),
    );
    assert.deepEqual(r.rules, [
      [
        "evaluation",
        "error",
        "failed to evaluate policy: MutatingPolicy mp: spec.matchConditions[0].expression: compilation failed: output is expected to be of type bool",
      ],
    ]);
    assert.equal((r.patched?.["metadata"] as JsonObject | undefined)?.["labels"], undefined);
  });

  test("a JSONPatch with jsonpatch.escapeKey adds an annotation whose key holds a slash", () => {
    const p = mpol({
      mutations: [
        jsonPatch(
          '[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}, JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/owner"), value: "me"}]',
        ),
      ],
    });
    const r = run(p, pod({ name: "a" }));
    assert.deepEqual(r.rules, [["", "pass", "success"]]);
    assert.deepEqual((r.patched?.["metadata"] as JsonObject)["annotations"], { "example.com/owner": "me" });
  });

  test("matchConditions not met: skip 'skip', the resource unchanged; an error in one is an error naming it", () => {
    const skip = run(mpol({ matchConditions: [{ name: "never", expression: "false" }], mutations: [addLabel] }), pod());
    assert.deepEqual(skip.rules, [["", "skip", "skip"]]);
    const failing = run(
      mpol({ matchConditions: [{ name: "bad", expression: "object.spec.nothing.x == 1" }], mutations: [addLabel] }),
      pod(),
    );
    assert.equal(failing.rules[0]?.[0], "evaluation");
    assert.equal(failing.rules[0]?.[1], "error");
    assert.match(String(failing.rules[0]?.[2]), /^failed to evaluate policy: /);
  });

  test("variables are read by mutations, and each mutation sees the object the one before patched", () => {
    const p = mpol({
      variables: [{ name: "team", expression: '"blue"' }],
      mutations: [
        apply('Object{metadata: Object.metadata{labels: {"team": variables.team}}}'),
        apply('Object{metadata: Object.metadata{labels: {"copy": object.metadata.labels["team"]}}}'),
      ],
    });
    const r = run(p, pod({ name: "a" }));
    assert.deepEqual((r.patched?.["metadata"] as JsonObject)["labels"], { team: "blue", copy: "blue" });
  });

  test("autogen: a Pod policy also patches a Deployment's pod template", () => {
    const p = mpol({ mutations: [apply('Object{spec: Object.spec{priorityClassName: "high"}}')] });
    const d = deployment("web", { app: "web" });
    const r = run(p, d);
    assert.deepEqual(r.rules, [["", "pass", "success"]]);
    const template = (r.patched?.["spec"] as JsonObject)["template"] as JsonObject;
    assert.equal((template["spec"] as JsonObject)["priorityClassName"], "high");
  });

  test("autogen: an Object.metadata{…} constructor lands under the template's wrapper with the wrong type name: Kyverno's type mismatch, nothing patched", () => {
    const d = deployment("web", { app: "web" });
    const r = run(mpol({ mutations: [addLabel] }), d);
    assert.deepEqual(r.rules, [
      [
        "evaluation",
        "error",
        'failed to evaluate policy: type mismatch: unexpected type name "Object.metadata", expected "Object.spec.template.metadata", which matches field name path from root Object type',
      ],
    ]);
    assert.deepEqual(r.patched, d);
  });

  test("a constructor whose type name is not its field path is an error once the expression evaluates (ApplyConfiguration and a JSONPatch value)", () => {
    const wrong = apply('Object{spec: Object.spec{containers: [Object.spec.container{name: "c"}]}}');
    assert.deepEqual(run(mpol({ mutations: [wrong] }), pod({ name: "a" })).rules, [
      [
        "evaluation",
        "error",
        'failed to evaluate policy: type mismatch: unexpected type name "Object.spec.container", expected "Object.spec.containers", which matches field name path from root Object type',
      ],
    ]);
    const patch = jsonPatch('[JSONPatch{op: "add", path: "/spec/x", value: Object.x{y: Object.z{}}}]');
    assert.match(
      String(run(mpol({ mutations: [patch] }), pod({ name: "a" })).rules[0]?.[2]),
      /unexpected type name "Object.z", expected "Object.x.y"/,
    );
    // Skipped by its matchConditions: never evaluated, no error.
    const skipped = mpol({ matchConditions: [{ name: "never", expression: "false" }], mutations: [wrong] });
    assert.deepEqual(run(skipped, pod({ name: "a" })).rules, [["", "skip", "skip"]]);
  });

  test("a NamespacedMutatingPolicy acts only in its own namespace", () => {
    const p = mpol({ mutations: [addLabel] }, "NamespacedMutatingPolicy", "tenant-a");
    assert.deepEqual(run(p, pod({ name: "a", namespace: "tenant-a" })).rules, [["", "pass", "success"]]);
    assert.deepEqual(run(p, pod({ name: "a", namespace: "tenant-b" })).rules, []);
  });

  test("mutateExisting still patches the trigger at admission (its targets are the background controller's: targets.test.ts)", () => {
    const p = mpol({ evaluation: { mutateExisting: { enabled: true } }, mutations: [addLabel] });
    const r = run(p, pod());
    assert.deepEqual(r.rules, [["", "pass", "success"]]);
    assert.deepEqual((r.patched?.["metadata"] as JsonObject)["labels"], { team: "a" });
  });
});

describe("MutatingPolicy with the built-in kinds' types (an offline engine, as Kyverno's CLI)", () => {
  const typed = createEngine({ ...fakePorts(), typedKinds: builtinTypedKinds });
  const tolerate = apply(
    "Object{spec: Object.spec{tolerations: [Object.spec.tolerations{key: 'a', operator: 'Exists'}]}}",
  );
  const compiled = (spec: JsonObject) => {
    const r = typed.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "mp" },
      spec: { matchConstraints: podRules, ...spec },
    });
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.policy;
  };
  const rows = (p: CompiledPolicy, resource: JsonObject) =>
    typed
      .mutate(p, { resource, operation: "CREATE", namespaceLabels: {} })
      .rules.map((x) => [x.rule, x.status, x.message]);

  test("setting an atomic list is Kubernetes' refusal; an engine without the types (a cluster's) patches", () => {
    assert.deepEqual(rows(compiled({ mutations: [tolerate] }), pod({ name: "a" })), [
      [
        "evaluation",
        "error",
        "failed to evaluate policy: error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tolerations",
      ],
    ]);
    assert.deepEqual(run(mpol({ mutations: [tolerate] }), pod({ name: "a" })).rules, [["", "pass", "success"]]);
  });

  test("an object with an undeclared field is refused before the merge", () => {
    const bad = pod({ name: "a" });
    (bad["spec"] as JsonObject)["securityContext"] = { allowPrivilegeEscalation: false };
    assert.deepEqual(rows(compiled({ mutations: [addLabel] }), bad), [
      [
        "evaluation",
        "error",
        "failed to evaluate policy: error applying patch: failed to convert original object to typed object: .spec.securityContext.allowPrivilegeEscalation: field not declared in schema",
      ],
    ]);
  });
});

describe("a list an ApplyConfiguration sets to [] is Go's nil slice (checked beside kyverno apply v1.19.0)", () => {
  const setEmpty = mpol({
    mutations: [apply("Object{metadata: Object.metadata{labels: {'x': 'y'}}, spec: Object.spec{initContainers: []}}")],
  });
  const addLabel = mpol({ mutations: [jsonPatch("[JSONPatch{op: 'add', path: '/metadata/labels/j', value: 'k'}]")] });
  const readNull = mpol({
    mutations: [
      apply(
        "Object{metadata: Object.metadata{labels: {'init': string(object.spec.initContainers == null), 'vol': string(object.spec.volumes == null)}}}",
      ),
    ],
  });
  const base = pod({ name: "p6" });
  (base["spec"] as JsonObject)["volumes"] = [];
  const chain = (...policies: CompiledPolicy[]): JsonObject =>
    policies.reduce((resource, p) => run(p, resource).patched ?? resource, base);
  const labels = (o: JsonObject) => (o["metadata"] as JsonObject)["labels"] as JsonObject;

  test("it reads as [] until a JSONPatch mutation encodes the object, then as null; the resource's own [] stays", () => {
    const direct = chain(setEmpty, readNull);
    assert.deepEqual([labels(direct)["init"], labels(direct)["vol"]], ["false", "false"]);
    assert.deepEqual((direct["spec"] as JsonObject)["initContainers"], []);
    const throughJsonPatch = chain(setEmpty, addLabel, readNull);
    assert.deepEqual([labels(throughJsonPatch)["init"], labels(throughJsonPatch)["vol"]], ["true", "false"]);
    assert.equal((throughJsonPatch["spec"] as JsonObject)["initContainers"], null);
  });
});

describe("ApplyConfiguration merge", () => {
  const base = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", labels: { a: "1" } },
    spec: {
      containers: [
        { name: "app", image: "nginx", env: [{ name: "X", value: "1" }] },
        { name: "side", image: "busybox" },
      ],
      tolerations: [{ key: "old" }],
    },
  };

  test("maps merge; containers merge by name, new ones appended; an atomic list (tolerations) is replaced", () => {
    const out = applyConfiguration(base, {
      metadata: { labels: { b: "2" } },
      spec: {
        containers: [
          { name: "side", image: "busybox:1.36" },
          { name: "new", image: "alpine" },
        ],
        tolerations: [{ key: "new" }],
      },
    });
    assert.deepEqual((out["metadata"] as JsonObject)["labels"], { a: "1", b: "2" });
    const spec = out["spec"] as JsonObject;
    assert.deepEqual(spec["containers"], [
      { name: "app", image: "nginx", env: [{ name: "X", value: "1" }] },
      { name: "side", image: "busybox:1.36" },
      { name: "new", image: "alpine" },
    ]);
    assert.deepEqual(spec["tolerations"], [{ key: "new" }]);
  });

  test("a custom resource has no schema: its lists are atomic", () => {
    const cr = { apiVersion: "example.com/v1", kind: "Thing", spec: { items: [{ name: "a" }] } };
    const out = applyConfiguration(cr, { spec: { items: [{ name: "b" }] } });
    assert.deepEqual((out["spec"] as JsonObject)["items"], [{ name: "b" }]);
  });
});

describe("object constructors", () => {
  test("become dyn map literals with quoted field names; maps, calls and strings inside are left as written", () => {
    assert.equal(
      structLiteralsAsMaps('Object{metadata: Object.metadata{labels: {"k": f(a, b)}, name: "x{y: z}"}}'),
      'dyn({"metadata": dyn({"labels": {"k": f(a, b)}, "name": "x{y: z}"})})',
    );
    assert.equal(structLiteralsAsMaps('JSONPatch{op: "add"}'), 'dyn({"op": "add"})');
    assert.equal(structLiteralsAsMaps("object.spec"), "object.spec");
  });
});
