/**
 * Every policies.kyverno.io kind is checked against its CRD's schema before it compiles: a wrong
 * type, a field the CRD does not declare (at any depth, with the field it probably means) and a
 * missing required field refuse the policy, each problem at its field path as the API server words it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const rules = (resource: string) => ({
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: [resource] }],
});

/** A spec each kind compiles, and a field the CRD requires of that kind's spec. */
const kinds: [kind: string, spec: JsonObject, required: string][] = [
  ["ValidatingPolicy", { matchConstraints: rules("pods"), validations: [{ expression: "true" }] }, ""],
  [
    "MutatingPolicy",
    {
      matchConstraints: rules("pods"),
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
    },
    "",
  ],
  [
    "ImageValidatingPolicy",
    { matchConstraints: rules("pods"), attestors: [], validations: [{ expression: "true" }] },
    "attestors",
  ],
  [
    "GeneratingPolicy",
    { matchConstraints: rules("namespaces"), generate: [{ expression: "generator.Apply(object.metadata.name, [])" }] },
    "generate",
  ],
  ["DeletingPolicy", { matchConstraints: rules("pods"), schedule: "*/5 * * * *" }, "schedule"],
];
const validating = kinds[0]?.[1] ?? {};
const cases = kinds.flatMap(([kind, spec, required]) => [
  [kind, spec, required] as const,
  [`Namespaced${kind}`, spec, required] as const,
]);

function doc(kind: string, spec: JsonObject): JsonObject {
  return { apiVersion: "policies.kyverno.io/v1", kind, metadata: { name: "p", namespace: "team" }, spec };
}

function problems(kind: string, spec: JsonObject): string[] {
  const r = engine.compile(doc(kind, spec));
  return r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`);
}

for (const [kind, spec, required] of cases) {
  test(`${kind}: the valid policy compiles`, () => {
    assert.deepEqual(problems(kind, spec), []);
  });

  test(`${kind}: a wrong type is refused at its path`, () => {
    assert.deepEqual(problems(kind, { ...spec, variables: [{ name: "v", expression: 1 }] }), [
      'spec.variables[0].expression: Invalid value: "integer": spec.variables[0].expression in body must be of type string',
    ]);
  });

  test(`${kind}: an unknown field deep in spec is named with the field it probably means`, () => {
    const constraints = rules("pods");
    const [rule] = constraints.resourceRules;
    const misspelled = { ...constraints, resourceRules: [{ ...rule, apiGroup: [""] }] };
    assert.deepEqual(problems(kind, { ...spec, matchConstraints: misspelled }), [
      'spec.matchConstraints.resourceRules[0].apiGroup: field not declared in schema; did you mean "apiGroups"?',
    ]);
  });

  test(`${kind}: a missing required field is refused at its path`, () => {
    assert.deepEqual(problems(kind, { ...spec, variables: [{ expression: "1" }] }), [
      "spec.variables[0].name: Required value",
    ]);
    if (required === "") return;
    const without: JsonObject = { ...spec };
    delete without[required];
    assert.deepEqual(problems(kind, without), [`spec.${required}: Required value`]);
  });

  test(`${kind}: every problem is reported, not the first only`, () => {
    const found = problems(kind, { ...spec, variables: [{ expression: true }], matchConstraint: {} });
    assert.deepEqual(
      found.sort(),
      [
        'spec.matchConstraint: field not declared in schema; did you mean "matchConstraints"?',
        "spec.variables[0].name: Required value",
        'spec.variables[0].expression: Invalid value: "boolean": spec.variables[0].expression in body must be of type string',
      ].sort(),
    );
  });
}

test("a ValidatingPolicy's wrong-typed evaluation field is refused (it loaded and passed before)", () => {
  assert.deepEqual(
    problems("ValidatingPolicy", {
      ...validating,
      evaluation: { background: { enabled: "yes" } },
    }),
    [
      'spec.evaluation.background.enabled: Invalid value: "string": spec.evaluation.background.enabled in body must be of type boolean',
    ],
  );
});

test("each served version is checked against its own schema (v1alpha1, v1beta1)", () => {
  for (const apiVersion of ["policies.kyverno.io/v1alpha1", "policies.kyverno.io/v1beta1"]) {
    const r = engine.compile({ ...doc("ValidatingPolicy", { validatons: [] }), apiVersion });
    assert.deepEqual(r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`), [
      'spec.validatons: field not declared in schema; did you mean "validations"?',
    ]);
  }
});

test("a ValidatingPolicy's paramKind/paramRef say why they are not declared", () => {
  assert.deepEqual(problems("ValidatingPolicy", { ...validating, paramKind: { kind: "ConfigMap" } }), [
    "spec.paramKind: field not declared in schema; Kyverno 1.19's ValidatingPolicy has no parameter resources (a ValidatingAdmissionPolicy with a binding has)",
  ]);
});
