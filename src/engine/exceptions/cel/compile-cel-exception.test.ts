/** policies.kyverno.io PolicyException documents compiled once: fields as the CRD declares them, CEL compiled at load. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { createEngine } from "../../engine.js";
import { fakePorts } from "../../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const refs = [{ kind: "ValidatingPolicy", name: "vp" }];

function polex(spec: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "PolicyException",
    metadata: { name: "ex", namespace: "team" },
    spec,
    ...extra,
  };
}

function problemsOf(doc: JsonObject): string[] {
  const r = engine.compileException(doc, "ex.yaml: document 1");
  return r.ok ? [] : r.problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

describe("compileCelException", () => {
  test("v1, v1beta1 and v1alpha1 compile; the key is namespace/name and defaults are Kyverno's", () => {
    for (const v of ["policies.kyverno.io/v1", "policies.kyverno.io/v1beta1", "policies.kyverno.io/v1alpha1"]) {
      const r = engine.compileException(polex({ policyRefs: refs }, { apiVersion: v }));
      assert.ok(r.ok, v);
      if (!r.ok || !("policyRefs" in r.exception)) return;
      assert.equal(r.exception.key, "team/ex");
      assert.equal(r.exception.reportResult, "skip");
      assert.deepEqual(
        [r.exception.images, r.exception.allowedValues, r.exception.matchConditions.length],
        [[], [], 0],
      );
    }
  });

  test("policyRefs is required, each with kind and name", () => {
    assert.match(problemsOf(polex({})).join("\n"), /^spec\.policyRefs: Required value/);
    assert.deepEqual(problemsOf(polex({ policyRefs: [{ name: "vp" }] })), [
      "spec.policyRefs[0].kind: Required value: kind is required",
    ]);
  });

  test("a matchConditions expression that does not compile loads, carrying the refusal (field, position) that fails the policies it names, as Kyverno compiles it with them", () => {
    const r = engine.compileException(
      polex({
        policyRefs: refs,
        matchConditions: [
          { name: "ok", expression: "true" },
          { name: "bad", expression: "object.metadata.name ==" },
        ],
      }),
    );
    assert.ok(r.ok && "policyRefs" in r.exception);
    const refusal = r.exception.refusal;
    assert.equal(refusal?.field, "spec.matchConditions[1].expression");
    assert.equal(refusal?.expression, "object.metadata.name ==");
    assert.match(refusal?.reason ?? "", /^ERROR: <input>:1:24: Syntax error/);
    // A path that does not ask for the refusal meets a condition that always errs: never an exemption.
    const bad = r.exception.matchConditions[1];
    assert.equal(bad?.program.evaluate({}).ok, false);
  });

  test("a condition not of type bool exactly loads, carrying the refusal that fails the policies it names", () => {
    for (const expression of ["'text'", "object.spec.flag"]) {
      const r = engine.compileException(polex({ policyRefs: refs, matchConditions: [{ name: "n", expression }] }));
      assert.ok(r.ok && "policyRefs" in r.exception, expression);
      assert.deepEqual(r.exception.refusal, {
        field: "spec.matchConditions[0].expression",
        expression,
        reason: "output is expected to be of type bool",
      });
    }
    const r = engine.compileException(
      polex({ policyRefs: refs, matchConditions: [{ name: "n", expression: "object.spec.flag == true" }] }),
    );
    assert.ok(r.ok && "policyRefs" in r.exception && r.exception.refusal === undefined);
  });

  test("a condition is named once with a qualified name", () => {
    assert.deepEqual(
      problemsOf(
        polex({
          policyRefs: refs,
          matchConditions: [
            { name: "n", expression: "true" },
            { name: "n", expression: "true" },
          ],
        }),
      ),
      ['spec.matchConditions[1].name: Duplicate value: "n"'],
    );
    assert.match(
      problemsOf(polex({ policyRefs: refs, matchConditions: [{ name: "-n-", expression: "true" }] })).join(),
      /^spec\.matchConditions\[0\]\.name: Invalid value/,
    );
  });

  test("reportResult is skip or pass; expiresAt is an RFC 3339 date-time; images and allowedValues are lists of strings", () => {
    assert.match(
      problemsOf(polex({ policyRefs: refs, reportResult: "fail" })).join(),
      /^spec\.reportResult: Unsupported value: "fail"/,
    );
    assert.match(
      problemsOf(polex({ policyRefs: refs, expiresAt: "tomorrow" })).join(),
      /^spec\.expiresAt: Invalid value/,
    );
    assert.match(
      problemsOf(polex({ policyRefs: refs, images: "nginx" })).join(),
      /^spec\.images: must be a list of strings/,
    );
    const r = engine.compileException(
      polex(
        { policyRefs: refs, reportResult: "pass", expiresAt: "2026-05-01T00:00:00Z", allowedValues: ["a"] },
        { metadata: { name: "ex", labels: { "polex.kyverno.io/priority": "5" } } },
      ),
    );
    assert.ok(r.ok && "policyRefs" in r.exception);
    if (!r.ok || !("policyRefs" in r.exception)) return;
    assert.deepEqual(
      [
        r.exception.key,
        r.exception.reportResult,
        r.exception.expiresAt,
        r.exception.priority,
        r.exception.allowedValues,
      ],
      ["ex", "pass", Date.UTC(2026, 4, 1), 5, ["a"]],
    );
  });

  test("a field the schema does not declare is a warning, not an error", () => {
    const r = engine.compileException(polex({ policyRefs: refs, exceptions: [] }));
    assert.ok(r.ok);
    if (r.ok)
      assert.deepEqual(
        r.exception.warnings.map((w) => [w.severity, w.path]),
        [["warning", "spec.exceptions"]],
      );
  });

  test("a field the schema does not declare, deep in spec, stays a warning, with the field it probably means", () => {
    const r = engine.compileException(
      polex({
        policyRefs: refs,
        matchConditions: [{ name: "c", expression: "true", expresion: "true" }],
        reportResults: "pass",
      }),
    );
    assert.ok(r.ok);
    if (r.ok)
      assert.deepEqual(
        r.exception.warnings.map((w) => `${w.severity} ${w.path}: ${w.message}`),
        [
          'warning spec.reportResults: field not declared in schema; did you mean "reportResult"? (ignored: the API server prunes it)',
          'warning spec.matchConditions[0].expresion: field not declared in schema; did you mean "expression"? (ignored: the API server prunes it)',
        ],
      );
  });

  test("a wrong type or a missing required field the schema finds is an error at its path", () => {
    assert.deepEqual(problemsOf(polex({ policyRefs: refs, properties: { team: 1 } })), [
      "spec.properties: must be a map of strings",
      'spec.properties.team: Invalid value: "integer": spec.properties.team in body must be of type string',
    ]);
    assert.deepEqual(problemsOf(polex({ policyRefs: refs }, { metadata: { name: "ex", labels: { a: true } } })), [
      'metadata.labels.a: Invalid value: "boolean": metadata.labels.a in body must be of type string',
    ]);
    assert.deepEqual(problemsOf(polex({ policyRefs: refs, evaluationMode: "x", images: ["a"] }, { spec: 1 })), [
      'spec: Invalid value: "integer": spec in body must be of type object',
    ]);
    assert.deepEqual(problemsOf(polex({}, { spec: null })), ["spec: Required value: spec is required"]);
  });

  test("a policies.kyverno.io PolicyException given as a policy says to load it as an exception", () => {
    const r = engine.compile(polex({ policyRefs: refs }));
    assert.equal(r.ok, false);
    if (!r.ok)
      assert.match(
        r.problems[0]?.message ?? "",
        /policies\.kyverno\.io PolicyException is not a policy: load it as an exception/,
      );
  });
});
