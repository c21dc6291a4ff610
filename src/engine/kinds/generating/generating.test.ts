/** GeneratingPolicy offline (issue 34 §3): compiled once to its own body; generate asks generator.Apply for objects. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import type { EngineRequest } from "../../pipeline/types.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { err, ok } from "../../api/result.js";

const namespaces = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
};
const configMaps = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
};
const netpol = `[{"apiVersion": dyn("networking.k8s.io/v1"), "kind": dyn("NetworkPolicy"), "metadata": dyn({"name": "deny"}), "spec": dyn({"podSelector": dyn({})})}]`;

function gpol(spec: JsonObject, kind = "GeneratingPolicy", namespace?: string): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "gp", ...(namespace === undefined ? {} : { namespace }) },
    spec,
  };
}

const engine = createEngine(fakePorts());
const none = { get: () => ok(undefined), list: () => ok([]) };
const ns: EngineRequest = {
  resource: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a", uid: "u1" } },
  operation: "CREATE",
  namespaceLabels: {},
};
const cm: EngineRequest = {
  resource: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "team-a" } },
  operation: "CREATE",
  namespaceLabels: {},
};

function compiled(doc: JsonObject) {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

test("a GeneratingPolicy compiles to its own generating body, in the generate phase only, with no kyverno rules", () => {
  const policy = compiled(
    gpol({
      matchConstraints: namespaces,
      evaluation: { synchronize: { enabled: true } },
      generate: [{ expression: `generator.Apply(object.metadata.name, ${netpol})` }],
    }),
  );
  assert.equal(policy.language, "generating");
  assert.equal(policy.kind, "GeneratingPolicy");
  assert.deepEqual(policy.phases, ["generate"]);
  assert.equal("rules" in policy, false, "no rules: its own body");
  assert.equal(policy.language === "generating" && policy.generating.synchronize, true);
  assert.equal(policy.origin.kind.shortName, "gpol");
});

test("generate: each object generator.Apply asks for, in the namespace asked for, with Kyverno's labels and the sync setting", () => {
  const policy = compiled(
    gpol({
      matchConstraints: namespaces,
      variables: [{ name: "target", expression: "object.metadata.name" }],
      evaluation: { synchronize: { enabled: true } },
      generate: [{ expression: `generator.Apply(variables.target, ${netpol})` }],
    }),
  );
  const response = engine.generate(policy, ns, none);
  assert.deepEqual(
    response.rules.map((r) => [r.rule, r.type, r.status, r.message]),
    [["gp", "Generation", "pass", "policy evaluated successfully"]],
  );
  const generated = response.rules[0]?.generated?.[0];
  assert.deepEqual(generated?.resource, {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: { name: "deny", namespace: "team-a" },
    spec: { podSelector: {} },
  });
  // Kyverno's CEL generator's labels: no rule name, no policy namespace for a cluster-wide policy.
  assert.deepEqual(generated?.labels, {
    "app.kubernetes.io/managed-by": "kyverno",
    "generate.kyverno.io/policy-name": "gp",
    "generate.kyverno.io/trigger-name": "team-a",
    "generate.kyverno.io/trigger-namespace": "",
    "generate.kyverno.io/trigger-uid": "u1",
    "generate.kyverno.io/trigger-kind": "Namespace",
    "generate.kyverno.io/trigger-group": "",
    "generate.kyverno.io/trigger-version": "v1",
  });
  assert.equal(generated?.synchronize, true);
  assert.equal(generated?.orphanDownstreamOnPolicyDelete, false);
  // Not matched: no result. Validate and mutate: none either.
  assert.deepEqual(engine.generate(policy, cm, none).rules, []);
  assert.deepEqual(engine.validate(policy, ns).rules, []);
});

test("a policy whose generate asks for nothing still passes, as Kyverno's gpol engine answers: its result is named by the policy", () => {
  const policy = compiled(
    gpol({
      matchConstraints: namespaces,
      generate: [{ expression: "generator.Apply(object.metadata.name, [])" }],
    }),
  );
  assert.deepEqual(
    engine.generate(policy, ns, none).rules.map((r) => [r.rule, r.status, r.message, r.generated]),
    [["gp", "pass", "policy evaluated successfully", []]],
  );
});

test("a NamespacedGeneratingPolicy's objects also name its namespace, so a same-named cluster-wide policy never owns them", () => {
  const policy = compiled(
    gpol(
      { matchConstraints: configMaps, generate: [{ expression: `generator.Apply("team-a", ${netpol})` }] },
      "NamespacedGeneratingPolicy",
      "team-a",
    ),
  );
  const labels = engine.generate(policy, cm, none).rules[0]?.generated?.[0]?.labels ?? {};
  assert.equal(labels["generate.kyverno.io/policy-namespace"], "team-a");
  assert.equal(labels["generate.kyverno.io/trigger-name"], "c");
  assert.equal(labels["generate.kyverno.io/rule-name"], undefined);
});

test("a NamespacedGeneratingPolicy asking for another namespace is an error naming the policy, never an object", () => {
  const policy = compiled(
    gpol(
      { matchConstraints: configMaps, generate: [{ expression: `generator.Apply("kube-system", ${netpol})` }] },
      "NamespacedGeneratingPolicy",
      "team-a",
    ),
  );
  const [result] = engine.generate(policy, cm, none).rules;
  assert.equal(result?.status, "error");
  assert.match(
    result?.message ?? "",
    /policy team-a\/gp may only generate in its own namespace "team-a", not "kube-system"/,
  );
  assert.equal(result?.generated, undefined);
});

test("generator.Apply in matchConditions is an error (a side effect outside generate)", () => {
  const inCondition = compiled(
    gpol({
      matchConstraints: namespaces,
      matchConditions: [{ name: "sneaky", expression: `generator.Apply("x", ${netpol})` }],
      generate: [{ expression: `generator.Apply("x", ${netpol})` }],
    }),
  );
  const [r] = engine.generate(inCondition, ns, none).rules;
  assert.equal(r?.status, "error");
  assert.match(
    r?.message ?? "",
    /^failed to evaluate policy: matchConditions sneaky: .*not available in matchConditions/,
  );
  assert.equal(r?.rule, "gp");
});

test("a GeneratingPolicy without spec.generate (or with an empty one) is refused at compile, naming the field as the API server does", () => {
  const r = engine.compile(gpol({ matchConstraints: namespaces }));
  assert.deepEqual(r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`), ["spec.generate: Required value"]);
  const empty = engine.compile(gpol({ matchConstraints: namespaces, generate: [] }));
  assert.deepEqual(empty.ok ? [] : empty.problems.map((p) => `${p.path}: ${p.message}`), [
    "spec.generate: Invalid value: 0: spec.generate in body should have at least 1 items",
  ]);
});

test("a clone source read through resource.Get is generated as read; one that cannot be read is an error naming the call", () => {
  const source = {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name: "regcred", namespace: "shared" },
    data: { k: "dg==" },
  };
  const ports = fakePorts();
  const reading = createEngine({
    ...ports,
    context: {
      ...ports.context,
      getResource: (req) =>
        req.namespace === "shared" && req.name === "regcred" && req.resource === "secrets"
          ? ok(source)
          : err("not-found", `secrets ${req.namespace}/${req.name} not found`),
    },
  });
  const doc = gpol({
    matchConstraints: namespaces,
    generate: [
      {
        expression: `generator.Apply(object.metadata.name, [resource.Get("v1", "secrets", "shared", "regcred")])`,
      },
    ],
  });
  const compiledPolicy = reading.compile(doc);
  assert.ok(compiledPolicy.ok);
  const [result] = reading.generate(compiledPolicy.policy, ns, none).rules;
  assert.equal(result?.status, "pass", result?.message);
  assert.deepEqual(result?.generated?.[0]?.resource, {
    ...source,
    metadata: { name: "regcred", namespace: "team-a" },
  });
  const [missing] = engine.generate(compiled(doc), ns, none).rules;
  assert.equal(missing?.status, "error");
  assert.match(missing?.message ?? "", /spec.generate\[0\]: .*resource.Get\("v1", "secrets", "shared", "regcred"\)/);
});

test("a synchronized policy whose resourceRules leave UPDATE out warns that a trigger's update deletes its objects; with UPDATE or without synchronize, no warning", () => {
  const generate = [{ expression: `generator.Apply(object.metadata.name, ${netpol})` }];
  const warningsOf = (spec: JsonObject): string[] =>
    compiled(gpol({ ...spec, generate })).warnings.map((w) => `${w.severity} ${w.path}: ${w.message}`);
  const sync = { evaluation: { synchronize: { enabled: true } } };
  const [only] = warningsOf({ matchConstraints: namespaces, ...sync });
  assert.match(
    only ?? "",
    /^warning spec\.matchConstraints\.resourceRules\[0\]\.operations: synchronize is enabled and UPDATE is not among the operations: .*add UPDATE to keep it$/,
  );
  const withUpdate = {
    resourceRules: [
      { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["namespaces"] },
    ],
  };
  assert.deepEqual(warningsOf({ matchConstraints: withUpdate, ...sync }), []);
  assert.deepEqual(warningsOf({ matchConstraints: namespaces }), []);
});

const TEAM_TEMPLATE = `apiVersion: v1
kind: ConfigMap
metadata:
  name: team-((object.metadata.name))
  namespace: (( object.metadata.name ))
  labels: '(( {"team": object.metadata.name, "size": string(size(object.metadata.name))} ))'
data:
  literal: \\((not a placeholder))
  count: (( 1 + 2 ))
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: deny
  namespace: (( object.metadata.name ))
spec:
  podSelector: {}
`;

test("a template with interpolate: cel generates its documents: whole-value placeholders keep their type, embedded ones are written in, an escape stays literal", () => {
  const p = compiled(
    gpol({ matchConstraints: namespaces, generate: [{ template: { value: TEAM_TEMPLATE, interpolate: "cel" } }] }),
  );
  const [r] = engine.generate(p, ns, none).rules;
  assert.equal(r?.status, "pass", r?.message);
  assert.equal(r?.message, "policy evaluated successfully");
  const [cm, np] = (r?.generated ?? []).map((g) => g.resource);
  assert.deepEqual(cm, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "team-team-a", namespace: "team-a", labels: { team: "team-a", size: "6" } },
    data: { literal: "((not a placeholder))", count: 3 },
  });
  assert.deepEqual(np?.["metadata"], { name: "deny", namespace: "team-a" });
  assert.deepEqual(np?.["spec"], { podSelector: {} });
});

test("a template without interpolation is taken as written; placeholders are text", () => {
  const value =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixed\n  namespace: ops\ndata:\n  x: ((object.metadata.name))\n";
  const p = compiled(gpol({ matchConstraints: namespaces, generate: [{ template: { value } }] }));
  const [r] = engine.generate(p, ns, none).rules;
  assert.deepEqual(
    r?.generated?.map((g) => g.resource),
    [
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "fixed", namespace: "ops" },
        data: { x: "((object.metadata.name))" },
      },
    ],
  );
});

test("a template that does not compile is refused at load, naming the field and line; expression and template together too", () => {
  const failure = (generate: JsonObject[]): string | undefined => {
    const p = compiled(gpol({ matchConstraints: namespaces, generate }));
    return p.language === "generating" ? p.generating.failure : undefined;
  };
  const tpl = (value: string): JsonObject[] => [{ template: { value, interpolate: "cel" } }];
  assert.match(
    failure(tpl("kind: ConfigMap\nmetadata:\n  name: (( object.metadata.name + ))\n")) ?? "",
    /^policy gp: spec\.generate\[0\]\.template\.value: line 3: invalid placeholder expression "object\.metadata\.name \+": /,
  );
  assert.equal(
    failure(tpl("kind: ConfigMap\nmetadata:\n  labels:\n    (( object.kind )): x\n")),
    "policy gp: spec.generate[0].template.value: line 4: placeholders are not supported in mapping keys; use a whole-value placeholder on the parent field instead (e.g. `labels: (( variables.labels ))`)",
  );
  assert.equal(
    failure(tpl("- a\n- b\n")),
    "policy gp: spec.generate[0].template.value: line 1: document must be a mapping describing a resource",
  );
  assert.equal(
    failure(tpl("---\n")),
    "policy gp: spec.generate[0].template.value: template must contain at least one YAML document",
  );
  assert.equal(
    failure(tpl("kind: ConfigMap\nmetadata:\n  name: (( object.metadata.name\n")),
    "policy gp: spec.generate[0].template.value: line 3: unterminated placeholder starting at offset 0: missing closing '))'",
  );
  assert.equal(
    failure([{ expression: `generator.Apply("x", ${netpol})`, template: { value: "kind: X" } }]),
    "policy gp: spec.generate[0]: only one of expression or template may be set",
  );
});

test("a template's render error names the document, field and placeholder; a structured value inside a string is an error", () => {
  const value = "kind: ConfigMap\nmetadata:\n  name: x-(( object.metadata ))\n";
  const p = compiled(gpol({ matchConstraints: namespaces, generate: [{ template: { value, interpolate: "cel" } }] }));
  const [r] = engine.generate(p, ns, none).rules;
  assert.equal(r?.status, "error");
  assert.equal(
    r?.message,
    'failed to evaluate policy: spec.generate[0]: failed to render generation template: document 1: field "metadata": field "name": placeholder "object.metadata" embedded in a string must evaluate to a scalar, got map[string]interface {}; use a whole-value placeholder for structured results',
  );
});

test("a NamespacedGeneratingPolicy's template: objects without a namespace go to its own; another namespace is refused", () => {
  const own = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n";
  const cmInTeam = { ...cm, resource: { ...cm.resource, metadata: { name: "c", namespace: "team-a" } } };
  const p = compiled(
    gpol(
      { matchConstraints: configMaps, generate: [{ template: { value: own } }] },
      "NamespacedGeneratingPolicy",
      "team-a",
    ),
  );
  const [r] = engine.generate(p, cmInTeam, none).rules;
  assert.equal(r?.status, "pass", r?.message);
  assert.deepEqual(
    r?.generated?.map((g) => (g.resource["metadata"] as JsonObject)["namespace"]),
    ["team-a"],
  );
  const other = compiled(
    gpol(
      { matchConstraints: configMaps, generate: [{ template: { value: `${own}  namespace: kube-system\n` } }] },
      "NamespacedGeneratingPolicy",
      "team-a",
    ),
  );
  const [o] = engine.generate(other, cmInTeam, none).rules;
  assert.equal(o?.status, "error");
  assert.equal(
    o?.message,
    'failed to evaluate policy: spec.generate[0]: cross-namespace generation denied: a policy in namespace "team-a" cannot generate resources into namespace "kube-system"',
  );
});

test("a template whose aliases expand without bound is refused at load, with or without placeholders", () => {
  const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 0; i < 8; i++)
    laughs.push(
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + i)}`)
        .join(", ")}]`,
    );
  const value = `kind: ConfigMap\nmetadata:\n  name: (( "x" ))\ndata:\n  ${laughs.join("\n  ")}\n`;
  for (const interpolate of ["cel", "none"]) {
    const p = compiled(gpol({ matchConstraints: namespaces, generate: [{ template: { value, interpolate } }] }));
    const failure = p.language === "generating" ? p.generating.failure : undefined;
    assert.match(
      failure ?? "",
      /^policy gp: spec\.generate\[0\]\.template\.value: (failed to parse YAML|the template expands)/,
      interpolate,
    );
  }
});

test("a generate expression cel-go types other than bool fails to compile, as Kyverno's compiler refuses it", () => {
  const policy = compiled(gpol({ matchConstraints: namespaces, generate: [{ expression: "object.metadata.name" }] }));
  const [r] = engine.generate(policy, ns, none).rules;
  assert.equal(r?.status, "error");
  assert.match(
    r?.message ?? "",
    /spec\.generate\[0\]\.expression: compilation failed: output is expected to be of type bool$/,
  );
});
