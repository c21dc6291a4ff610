/** Kubernetes ValidatingAdmissionPolicy and its bindings through the engine: matching, params, results as Kyverno's CLI reports them. */
import { compiledAction } from "../../policy/compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { err, ok, type JsonObject, type JsonValue } from "../../index.js";
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

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};
const maxContainers = {
  paramKind: { apiVersion: "v1", kind: "ConfigMap" },
  matchConstraints: podRules,
  validations: [
    {
      expression: "size(object.spec.containers) <= int(params.data.max)",
      messageExpression: "'at most ' + params.data.max + ' containers'",
    },
  ],
};

function vap(spec: JsonObject, name = "vap"): JsonObject {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", metadata: { name }, spec };
}

function binding(name: string, spec: JsonObject): JsonObject {
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name },
    spec: { policyName: "vap", validationActions: ["Deny"], ...spec },
  };
}

function configMap(name: string, namespace: string | undefined, data: JsonObject, labels: JsonObject = {}): JsonObject {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...(namespace !== undefined ? { namespace } : {}), labels },
    data,
  };
}

function compile(engine: ReturnType<typeof createEngine>, doc: JsonObject, bindings: JsonValue[] = []): CompiledPolicy {
  const r = engine.compile(doc, { bindings });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.policy;
}

type Row = [string, string, string];

function run(
  engine: ReturnType<typeof createEngine>,
  p: CompiledPolicy,
  resource: JsonObject,
  extra: Partial<EngineRequest> = {},
): Row[] {
  return engine
    .validate(p, { resource, operation: "CREATE", namespaceLabels: {}, ...extra })
    .rules.map((r) => [r.rule, r.status, r.message]);
}

function containers(n: number): JsonObject[] {
  return Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1" }));
}

describe("ValidatingAdmissionPolicy without a binding (Kyverno's CLI evaluates it on its own)", () => {
  const engine = engineWith();
  const p = compile(
    engine,
    vap({
      matchConstraints: podRules,
      validations: [
        { expression: "object.metadata.name.startsWith('ok')", message: "name must start with ok" },
        { expression: "!has(object.spec.hostNetwork)" },
      ],
    }),
  );

  test("results are named after the policy: pass with no message, fail with the validation's message", () => {
    assert.deepEqual(run(engine, p, pod({ name: "ok-1" })), [["vap", "pass", ""]]);
    assert.deepEqual(run(engine, p, pod({ name: "bad" })), [["vap", "fail", "name must start with ok"]]);
    assert.deepEqual(run(engine, p, { ...pod({ name: "ok-2" }), spec: { hostNetwork: true, containers: [] } }), [
      ["vap", "fail", "failed expression: !has(object.spec.hostNetwork)"],
    ]);
    assert.equal(p.origin.kind.kind, "ValidatingAdmissionPolicy");
    assert.equal(p.language, "cel");
    assert.equal(compiledAction(p), "Enforce");
  });

  test("a resource outside matchConstraints gets no result", () => {
    assert.deepEqual(
      run(engine, p, { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } }),
      [],
    );
    assert.deepEqual(
      run(engine, p, pod({ name: "bad" }), { operation: "DELETE", oldResource: pod({ name: "bad" }) }),
      [],
    );
  });

  test("matchConditions not met skip; an error in them is an error; messageExpression wins over message", () => {
    const q = compile(
      engine,
      vap({
        matchConstraints: podRules,
        matchConditions: [{ name: "not-system", expression: "object.metadata.namespace != 'kube-system'" }],
        variables: [{ name: "n", expression: "size(object.spec.containers)" }],
        validations: [
          {
            expression: "variables.n < 2",
            message: "static",
            messageExpression: "'has ' + string(variables.n) + ' containers'",
          },
        ],
      }),
    );
    assert.deepEqual(run(engine, q, pod({ name: "a", namespace: "kube-system", containers: containers(3) })), [
      ["vap", "skip", "match conditions aren't met"],
    ]);
    assert.deepEqual(run(engine, q, pod({ name: "a", containers: containers(3) })), [
      ["vap", "fail", "has 3 containers"],
    ]);
    const broken = compile(
      engine,
      vap({
        matchConstraints: podRules,
        matchConditions: [{ name: "x", expression: "object.spec.nope == 1" }],
        validations: [{ expression: "true" }],
      }),
    );
    const [row] = run(engine, broken, pod({ name: "a" }));
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /^expression 'object\.spec\.nope == 1' resulted in error: /);
  });

  test("an evaluation error is an error naming the expression; a failing variable names itself", () => {
    const q = compile(
      engine,
      vap({
        matchConstraints: podRules,
        variables: [{ name: "bad", expression: "object.spec.nope" }],
        validations: [{ expression: "variables.bad == 1" }],
      }),
    );
    const [row] = run(engine, q, pod({ name: "a" }));
    assert.equal(row?.[1], "error");
    assert.match(
      row?.[2] ?? "",
      /^expression 'variables\.bad == 1' resulted in error: composited variable "bad" fails to evaluate: /,
    );
  });

  test("an expression that does not compile is an error naming the policy, the field and the position", () => {
    const q = compile(
      engine,
      vap({ matchConstraints: podRules, validations: [{ expression: "object.spec.containers.all(c, " }] }),
    );
    const [row] = run(engine, q, pod({ name: "a" }));
    assert.equal(row?.[1], "error");
    assert.match(row?.[2] ?? "", /policy vap: spec\.validations\[0\]\.expression: compilation failed: .*1:/);
  });

  test("a policy without params evaluates params as null, as Kyverno's CLI does", () => {
    const q = compile(engine, vap(maxContainers));
    const [row] = run(engine, q, pod({ name: "a" }));
    assert.equal(row?.[1], "error");
  });

  test("invalid fields fail the load", () => {
    assert.equal(
      engine.compile(vap({ matchConstraints: podRules, failurePolicy: "Never", validations: [{ expression: "true" }] }))
        .ok,
      false,
    );
    assert.equal(engine.compile(vap({ validations: [{ expression: "true" }] })).ok, false);
    assert.equal(
      engine.compile(vap({ matchConstraints: podRules, validations: [{ expression: "true", reason: "Teapot" }] })).ok,
      false,
    );
  });
});

describe("ValidatingAdmissionPolicyBinding", () => {
  // Kyverno: pkg/admissionpolicy/validate.go, processVAPWithoutClient (each matching binding overwrites the response).
  test("one result per policy: the last binding whose matchResources match answers; other policies' bindings are ignored", () => {
    const engine = engineWith();
    const spec = {
      matchConstraints: podRules,
      validations: [{ expression: "object.metadata.name.startsWith('ok')", message: "bad name" }],
    };
    const p = compile(engine, vap(spec), [
      binding("prod", { matchResources: { namespaceSelector: { matchLabels: { env: "prod" } } } }),
      binding("warn-dev", {
        validationActions: ["Warn", "Audit"],
        matchResources: { namespaceSelector: { matchLabels: { env: "dev" } } },
      }),
      { ...binding("other", {}), spec: { policyName: "someone-else", validationActions: ["Deny"] } },
    ]);
    assert.deepEqual(
      [p.language === "cel" ? p.validating.programs.map((x) => x.resultName) : [], compiledAction(p)],
      [["vap"], "Enforce"],
    );
    const answer = (env: string): [unknown, unknown, string][] =>
      engine
        .validate(p, { resource: pod({ name: "bad" }), operation: "CREATE", namespaceLabels: { env } })
        .rules.map((r) => [r.properties?.["binding"], r.action, r.status]);
    assert.deepEqual(answer("prod"), [["prod", "Enforce", "fail"]]);
    assert.deepEqual(answer("dev"), [["warn-dev", "Audit", "fail"]]);
    assert.deepEqual(answer("test"), []);
    const both = compile(
      engine,
      vap({ ...spec, validations: [{ expression: "params == null || object.metadata.name == params.metadata.name" }] }),
      [binding("first", {}), binding("last", {})],
    );
    assert.deepEqual(
      engine
        .validate(both, { resource: pod({ name: "bad" }), operation: "CREATE", namespaceLabels: {} })
        .rules.map((r) => r.properties?.["binding"]),
      ["last"],
    );
  });

  // Kyverno: processVAPWithoutClient matches only binding.Spec.MatchResources; the policy's matchConstraints are read only without bindings (processVAPNoBindings).
  test("with a binding, the policy's matchConstraints are not consulted: a binding without matchResources matches every resource", () => {
    const engine = engineWith();
    const p = compile(
      engine,
      vap({ matchConstraints: podRules, validations: [{ expression: "object.kind == 'Pod'", message: "not a pod" }] }),
      [binding("all", {})],
    );
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    assert.deepEqual(run(engine, p, cm), [["vap", "fail", "not a pod"]]);
    const unbound = compile(
      engine,
      vap({ matchConstraints: podRules, validations: [{ expression: "object.kind == 'Pod'" }] }),
    );
    assert.deepEqual(run(engine, unbound, cm), []);
  });

  // Kyverno: pkg/cli/kubectl-kyverno/policy kubectlValidateLoader decodes bindings against the OpenAPI schema only (no API-server validation).
  test("a binding the API server would refuse but Kyverno's CLI loads is accepted and runs", () => {
    const engine = engineWith([configMap("limits", "team", { max: "2" })]);
    const lenient = [
      { ...binding("b", {}), spec: { policyName: "vap", paramRef: { name: "limits" } } },
      binding("b", { validationActions: ["Deny", "Warn"], paramRef: { name: "limits" } }),
      binding("b", {
        validationActions: ["Deny", "Deny"],
        paramRef: { name: "limits", parameterNotFoundAction: "Deny" },
      }),
    ];
    for (const b of lenient) {
      const p = compile(engine, vap(maxContainers), [b]);
      assert.deepEqual(
        run(engine, p, pod({ name: "a", namespace: "team", containers: containers(3) })),
        [["vap", "fail", "at most 2 containers"]],
        JSON.stringify(b),
      );
    }
    const noActions = compile(engine, vap(maxContainers), [
      { ...binding("b", {}), spec: { policyName: "vap", paramRef: { name: "limits" } } },
    ]);
    const r = engine.validate(noActions, {
      resource: pod({ name: "a", namespace: "team", containers: containers(3) }),
      operation: "CREATE",
      namespaceLabels: {},
    });
    assert.equal(r.rules[0]?.action, "Audit");
  });

  test("what the schema refuses fails the load naming the binding and the field", () => {
    const engine = engineWith();
    const check = (b: JsonObject, field: RegExp): void => {
      const r = engine.compile(vap(maxContainers), { bindings: [b] });
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.problems.map((p) => `${p.path}: ${p.message}`).join("\n"), field);
    };
    check(
      binding("b", { validationActions: ["Reject"] }),
      /spec\.validationActions\[0\]: ValidatingAdmissionPolicyBinding b: .*Unsupported value: "Reject"/,
    );
    check(binding("b", { validationActions: "Deny" }), /spec\.validationActions: .*must be a list/);
    check(
      binding("b", { paramRef: { name: "x", parameterNotFoundAction: "Fail" } }),
      /spec\.paramRef\.parameterNotFoundAction: .*Unsupported value: "Fail"/,
    );
    check(binding("b", { paramRef: "x" }), /spec\.paramRef: .*must be a mapping/);
  });

  test("a binding alone is not a policy", () => {
    const r = engineWith().compile(binding("b", {}));
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.problems[0]?.message ?? "", /not a policy: it binds the ValidatingAdmissionPolicy/);
  });
});

// Kyverno: pkg/admissionpolicy/validate.go processVAPWithoutClient and matchesSelector; cmd/cli/kubectl-kyverno/processor PolicyProcessor (every ParameterResources object is offered).
describe("params, as Kyverno's CLI chooses them offline", () => {
  const objects = [
    configMap("limits", "team", { max: "2" }),
    configMap("limits", "other", { max: "5" }),
    configMap("strict", "shared", { max: "1" }, { tier: "strict" }),
    configMap("loose", "shared", { max: "4" }, { tier: "loose" }),
    { apiVersion: "example.com/v1", kind: "Limits", metadata: { name: "crd-limits" }, data: { max: "3" } },
  ];
  const engine = engineWith(objects);
  const withRef = (paramRef: JsonObject, extra: JsonObject = {}): CompiledPolicy =>
    compile(engine, vap({ ...maxContainers, ...extra }), [binding("b", { paramRef })]);

  test("by name: the first object of that name, whatever its namespace or kind", () => {
    const p = withRef({ name: "limits", parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, p, pod({ name: "a", namespace: "team", containers: containers(3) })), [
      ["vap", "fail", "at most 2 containers"],
    ]);
    assert.deepEqual(run(engine, p, pod({ name: "a", namespace: "other", containers: containers(3) })), [
      ["vap", "fail", "at most 2 containers"],
    ]);
    const namespaced = withRef({ name: "limits", namespace: "other", parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, namespaced, pod({ name: "a", namespace: "team", containers: containers(3) })), [
      ["vap", "fail", "at most 2 containers"],
    ]);
    const otherKind = withRef({ name: "crd-limits", parameterNotFoundAction: "Deny" });
    assert.deepEqual(run(engine, otherKind, pod({ name: "a", containers: containers(4) })), [
      ["vap", "fail", "at most 3 containers"],
    ]);
  });

  test("explain traces the bound policy's expressions as they ran with the parameter object", () => {
    const p = withRef({ name: "limits", namespace: "team", parameterNotFoundAction: "Deny" });
    const request: EngineRequest = {
      resource: pod({ name: "a", namespace: "team", containers: containers(3) }),
      operation: "CREATE",
      namespaceLabels: {},
    };
    const body = engine.explain(p, request, engine.validate(p, request).rules).rules.find((r) => r.rule === "vap");
    assert.deepEqual(
      body?.cel?.map((s) => [s.at, s.value]),
      [
        ["validations[0]", "false"],
        ["validations[0].messageExpression", '"at most 2 containers"'],
      ],
    );
  });

  test("a selector hands every matching object over at once, as a list object {items: [...]}", () => {
    const listAware = {
      ...maxContainers,
      validations: [
        {
          expression: "params.items.all(p, size(object.spec.containers) <= int(p.data.max))",
          messageExpression: "'checked ' + string(size(params.items))",
        },
      ],
    };
    const p = withRef(
      { selector: { matchExpressions: [{ key: "tier", operator: "Exists" }] }, parameterNotFoundAction: "Deny" },
      listAware,
    );
    assert.deepEqual(run(engine, p, pod({ name: "a", containers: containers(2) })), [["vap", "fail", "checked 2"]]);
    const perObject = withRef({ selector: { matchLabels: { tier: "loose" } }, parameterNotFoundAction: "Deny" });
    const [row] = run(engine, perObject, pod({ name: "a", containers: containers(2) }));
    assert.equal(row?.[1], "error");
    assert.match(
      row?.[2] ?? "",
      /^expression 'size\(object\.spec\.containers\) <= int\(params\.data\.max\)' resulted in error: /,
    );
  });

  test("none found: parameterNotFoundAction is not read; the policy runs with params null", () => {
    for (const action of ["Allow", "Deny"]) {
      const p = withRef({ name: "missing", parameterNotFoundAction: action });
      const [row] = run(engine, p, pod({ name: "a", namespace: "team" }));
      assert.equal(row?.[1], "error", action);
      const tolerant = withRef(
        { name: "missing", parameterNotFoundAction: action },
        { validations: [{ expression: "params == null", message: "had params" }] },
      );
      assert.deepEqual(run(engine, tolerant, pod({ name: "a" })), [["vap", "pass", ""]]);
    }
  });

  test("no parameter objects given (bylaw apply, as Kyverno's apply passes none): params null", () => {
    const bare = createEngine(fakePorts());
    const p = compile(bare, vap({ ...maxContainers, validations: [{ expression: "params == null" }] }), [
      binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Allow" } }),
    ]);
    assert.deepEqual(run(bare, p, pod({ name: "a", namespace: "team" })), [["vap", "pass", ""]]);
  });

  test("a port that fails to list is an error, never 'not found'", () => {
    const ports = fakePorts();
    const broken = createEngine({
      ...ports,
      context: { ...ports.context, paramObjects: () => err("unavailable", "disk on fire") },
    });
    const p = compile(broken, vap(maxContainers), [
      binding("b", { paramRef: { name: "limits", parameterNotFoundAction: "Allow" } }),
    ]);
    assert.deepEqual(run(broken, p, pod({ name: "a" })), [
      ["vap", "error", "binding b: parameter objects: disk on fire"],
    ]);
  });
});
