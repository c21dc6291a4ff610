/**
 * An ImageValidatingPolicy's expressions of the wrong type exactly fail to compile, as Kyverno's
 * ivpol compiler refuses them (pkg/image/verification/evaluator/compiler.go over pkg/cel/compiler):
 * matchImageReferences, matchConditions and validations not bool, messageExpression not string,
 * auditAnnotations neither string nor null, images not list(string), list(dyn) or dyn. Checked
 * beside kyverno apply v1.19.0. No image is selected here, so nothing is read from a registry.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine } from "../../engine.js";
import type { JsonObject } from "../../index.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";
import { pod } from "../../../../test/support/builders.js";

function ivpol(spec: JsonObject): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ImageValidatingPolicy",
    metadata: { name: "typed" },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "configmaps"] },
        ],
      },
      matchImageReferences: [{ glob: "nomatch.example/*" }],
      attestors: [{ name: "notary", notary: { certs: { value: "abc" } } }],
      validationConfigurations: { verifyDigest: false, mutateDigest: false, required: false },
      validations: [{ expression: "true" }],
      ...spec,
    },
  };
}

const POD = pod({ name: "web", containers: [{ name: "c", image: "nginx:1.25" }] });

/** The policy's one result on the resource (a Pod unless said): [status, message]. */
function result(spec: JsonObject, resource: JsonObject = POD): [string, string] {
  const engine = createEngine(fakePorts());
  const compiled = engine.compile(ivpol(spec));
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.problems));
  const r = engine.validate(compiled.policy, { resource, operation: "CREATE", namespaceLabels: {} }).rules[0];
  return [r?.status ?? "", r?.message ?? ""];
}

const refused = (field: string, wanted: string, expression: string): [string, string] => [
  "error",
  `failed to compile policy: ${field}: Invalid value: ${JSON.stringify(expression)}: output is expected to be ${wanted}`,
];

describe("ImageValidatingPolicy: types checked exactly, as Kyverno's compiler checks them", () => {
  test("a validation or matchCondition cel-go types dyn (or int) is not of type bool", () => {
    const bool = "of type bool";
    assert.deepEqual(
      result({ validations: [{ expression: "object.spec.flag" }] }),
      refused("spec.validations[0].expression", bool, "object.spec.flag"),
    );
    assert.deepEqual(
      result({ validations: [{ expression: "1" }] }),
      refused("spec.validations[0].expression", bool, "1"),
    );
    // cel-go substitutes dyn for a type parameter left unresolved.
    assert.deepEqual(
      result({ validations: [{ expression: "[][0]" }] }),
      refused("spec.validations[0].expression", bool, "[][0]"),
    );
    assert.deepEqual(
      result({ matchConditions: [{ name: "a", expression: "object.spec.flag" }] }),
      refused("spec.matchConditions[0].expression", bool, "object.spec.flag"),
    );
    assert.deepEqual(
      result({
        variables: [{ name: "v", expression: "object.spec.flag" }],
        validations: [{ expression: "variables.v" }],
      }),
      refused("spec.validations[0].expression", bool, "variables.v"),
    );
  });

  test("a matchImageReferences expression over ref is bool exactly", () => {
    const field = "spec.matchImageReferences[0].expression";
    assert.deepEqual(result({ matchImageReferences: [{ expression: "ref" }] }), refused(field, "of type bool", "ref"));
    assert.deepEqual(
      result({ matchImageReferences: [{ expression: "dyn(ref == 'x')" }] }),
      refused(field, "of type bool", "dyn(ref == 'x')"),
    );
    assert.deepEqual(result({ matchImageReferences: [{ expression: "dyn(ref) == 'x'" }] }), ["pass", "success"]);
  });

  test("messageExpression is a string, an auditAnnotation a string or null, an images extractor a list", () => {
    assert.deepEqual(
      result({ validations: [{ expression: "false", messageExpression: "object.metadata.name" }] }),
      refused("spec.validations[0].messageExpression", "of type string", "object.metadata.name"),
    );
    assert.deepEqual(
      result({ auditAnnotations: [{ key: "k", valueExpression: "object.metadata.name" }] }),
      refused("spec.auditAnnotations[0].valueExpression", "either of type string or null_type", "object.metadata.name"),
    );
    for (const expression of ['"a"', "[null]", "[[]]"])
      assert.deepEqual(
        result({ images: [{ name: "x", expression }] }),
        refused("spec.images[3].expression", "of type list", expression),
      );
  });

  test("an images extractor cannot read a variable: Kyverno compiles the extractors before the variables", () => {
    assert.deepEqual(
      result({
        variables: [{ name: "extra", expression: "['x']" }],
        images: [{ name: "mine", expression: "variables.extra" }],
      }),
      [
        "error",
        [
          `failed to compile policy: spec.images[3].expression: Invalid value: "variables.extra": ERROR: <input>:1:10: undefined field 'extra'`,
          " | variables.extra",
          " | .........^",
        ].join("\n"),
      ],
    );
  });

  test("an images extractor's index is counted after the resource's built-in extractors, as Kyverno's message counts it", () => {
    const images = [
      { name: "ok", expression: "[]" },
      { name: "x", expression: "1" },
    ];
    // A Pod (or a pod controller) has three: containers, initContainers, ephemeralContainers.
    assert.deepEqual(result({ images }), refused("spec.images[4].expression", "of type list", "1"));
    const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    assert.deepEqual(result({ images }, cm), refused("spec.images[1].expression", "of type list", "1"));
  });

  test("what Kyverno accepts compiles: bool, string, null, list(string), list(dyn), dyn and variables of unknown type", () => {
    for (const spec of [
      { validations: [{ expression: "object.metadata.name == 'web'" }] },
      { matchConditions: [{ name: "a", expression: "!has(object.spec.flag)" }] },
      { validations: [{ expression: "true", messageExpression: "'x' + string(1)" }] },
      { auditAnnotations: [{ key: "k", valueExpression: "string(object.metadata.name)" }] },
      { matchImageReferences: [{ expression: "ref.startsWith('nomatch')" }] },
      ...['["a"]', "[]", "[object.metadata.name]", "object.spec.containers.map(c, c.image)", "dyn([])"].map(
        (expression) => ({ images: [{ name: "x", expression }] }),
      ),
      // cel-go types variables.v by its expression, which reads another variable: Bylaw cannot tell, so lets it through.
      {
        variables: [
          { name: "w", expression: "true" },
          { name: "v", expression: "variables.w" },
        ],
        validations: [{ expression: "variables.v" }],
      },
    ])
      assert.deepEqual(result(spec), ["pass", "success"], JSON.stringify(spec));
    // A null annotation compiles (what it does when it runs is not a type question).
    assert.doesNotMatch(result({ auditAnnotations: [{ key: "k", valueExpression: "null" }] })[1], /failed to compile/);
  });
});
