import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { compileException } from "./compile-exception.js";

function polex(spec: JsonObject, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name: "delta-exception", namespace: "delta" },
    spec,
    ...extra,
  };
}

const entries = [{ policyName: "disallow-host-namespaces", ruleNames: ["host-namespaces", "autogen-host-namespaces"] }];
const match = {
  any: [{ resources: { kinds: ["Pod", "Deployment"], namespaces: ["delta"], names: ["important-tool*"] } }],
};

function errors(doc: JsonObject): string[] {
  const r = compileException(doc);
  return r.ok ? [] : r.problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

describe("compileException", () => {
  test("the documented example compiles with its key, entries and defaults", () => {
    const r = compileException(polex({ exceptions: entries, match }), "ex.yaml: document 1");
    assert.ok(r.ok);
    assert.equal(r.exception.key, "delta/delta-exception");
    assert.equal(r.exception.apiVersion, "kyverno.io/v2");
    assert.deepEqual(r.exception.entries, entries);
    assert.equal(r.exception.background, true);
    assert.deepEqual(r.exception.podSecurity, []);
    assert.equal(r.exception.source, "ex.yaml: document 1");
    assert.deepEqual(r.exception.warnings, []);
  });

  test("the deprecated v2beta1 version is accepted", () => {
    const r = compileException(polex({ exceptions: entries, match }, { apiVersion: "kyverno.io/v2beta1" }));
    assert.ok(r.ok);
    assert.equal(r.exception.apiVersion, "kyverno.io/v2beta1");
  });

  test("without a namespace the key is the bare name", () => {
    const r = compileException({
      apiVersion: "kyverno.io/v2",
      kind: "PolicyException",
      metadata: { name: "e" },
      spec: { exceptions: entries, match },
    });
    assert.ok(r.ok);
    assert.equal(r.exception.key, "e");
    assert.equal(r.exception.namespace, "");
  });

  const rejected: [string, JsonObject, string][] = [
    [
      "an unknown apiVersion",
      polex({ exceptions: entries, match }, { apiVersion: "kyverno.io/v1" }),
      "apiVersion: expected kyverno.io/v2 or kyverno.io/v2beta1",
    ],
    [
      "the CEL group",
      polex({ exceptions: entries, match }, { apiVersion: "policies.kyverno.io/v1" }),
      "apiVersion: expected",
    ],
    [
      "another kind",
      polex({ exceptions: entries, match }, { kind: "ClusterPolicy" }),
      "kind: expected PolicyException",
    ],
    [
      "no spec",
      { apiVersion: "kyverno.io/v2", kind: "PolicyException", metadata: { name: "x" } },
      "spec: Required value",
    ],
    ["no exceptions", polex({ match }), "spec.exceptions: Required value"],
    ["no match", polex({ exceptions: entries }), "spec.match: Required value"],
    [
      "an empty policyName",
      polex({ exceptions: [{ policyName: "", ruleNames: ["r"] }], match }),
      "spec.exceptions[0].policyName: Required value: An exception requires a policy name",
    ],
    [
      "no ruleNames",
      polex({ exceptions: [{ policyName: "p" }], match }),
      "spec.exceptions[0].ruleNames: Required value",
    ],
    [
      "ruleNames not strings",
      polex({ exceptions: [{ policyName: "p", ruleNames: [1] }], match }),
      "spec.exceptions[0].ruleNames: must be a list of strings",
    ],
    [
      "any and all together",
      polex({ exceptions: entries, match: { any: match.any, all: match.any } }),
      "spec.match: Can't specify any and all together",
    ],
    [
      "name and names together",
      polex({ exceptions: entries, match: { any: [{ resources: { name: "a", names: ["b"] } }] } }),
      "Both name and names can not be specified together",
    ],
    [
      "user info in a background exception",
      polex({ exceptions: entries, match: { any: [{ resources: { kinds: ["Pod"] }, roles: ["ns:admin"] }] } }),
      "spec.match.any[0].roles: Forbidden: Usage of user info is forbidden",
    ],
    [
      "an unknown condition operator",
      polex({ exceptions: entries, match, conditions: { all: [{ key: "a", operator: "Same", value: "a" }] } }),
      "spec.conditions.all[0].operator: entered value of `operator` is invalid",
    ],
    [
      "a podSecurity entry without controlName",
      polex({ exceptions: entries, match, podSecurity: [{ images: ["nginx*"] }] }),
      "spec.podSecurity[0].controlName: Required value",
    ],
  ];
  for (const [what, doc, expected] of rejected) {
    test(`rejects ${what}`, () => {
      const found = errors(doc);
      assert.ok(
        found.some((e) => e.startsWith(expected) || e.includes(expected)),
        `expected "${expected}" in ${JSON.stringify(found)}`,
      );
    });
  }

  test("user info is allowed once background is false", () => {
    const r = compileException(
      polex({
        background: false,
        exceptions: entries,
        match: { any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "alice" }] }] },
      }),
    );
    assert.ok(r.ok);
    assert.equal(r.exception.background, false);
  });

  test("unknown fields, the legacy match form and an empty filter are warnings", () => {
    const r = compileException(
      polex({ exceptions: entries, match: { any: [{}], resources: { kinds: ["Pod"] } }, extra: 1 }),
    );
    assert.ok(r.ok);
    const paths = r.exception.warnings.map((w) => w.path);
    assert.ok(paths.includes("spec.extra"));
    assert.ok(paths.includes("spec.match.resources"));
    assert.ok(paths.some((p) => p.startsWith("spec.match.any[0]")));
  });

  test("podSecurity entries keep their fields", () => {
    const podSecurity = [
      {
        controlName: "Capabilities",
        images: ["*/istio/proxyv2*"],
        restrictedField: "spec.initContainers[*].securityContext.capabilities.add",
        values: ["NET_ADMIN", "NET_RAW"],
      },
    ];
    const r = compileException(polex({ exceptions: entries, match, podSecurity }));
    assert.ok(r.ok);
    assert.deepEqual(r.exception.podSecurity, podSecurity);
    assert.deepEqual(r.exception.warnings, []);
  });

  test("a podSecurity entry that can never apply is accepted with a warning naming the field", () => {
    const r = compileException(
      polex({ exceptions: entries, match, podSecurity: [{ controlName: "Nope" }, { controlName: "Capabilities" }] }),
    );
    assert.ok(r.ok);
    assert.deepEqual(
      r.exception.warnings.map((w) => w.path),
      ["spec.podSecurity[0].controlName", "spec.podSecurity[1].controlName"],
    );
  });

  test("the CRD schema checks the rest: a mistyped filter is an error, an undeclared field a warning with a hint", () => {
    const bad = compileException(polex({ exceptions: entries, match: { any: [{ resources: { kinds: "Pod" } }] } }));
    assert.equal(bad.ok, false);
    assert.deepEqual(bad.ok ? [] : bad.problems.map((p) => `${p.path}: ${p.message}`), [
      'spec.match.any[0].resources.kinds: Invalid value: "string": spec.match.any[0].resources.kinds in body must be of type array',
    ]);
    const warned = compileException(
      polex({ exceptions: [{ policyName: "p", ruleNames: ["r"], ruleName: "x" }], match }),
    );
    assert.ok(warned.ok);
    assert.deepEqual(
      warned.exception.warnings.map((w) => `${w.path}: ${w.message}`),
      [
        'spec.exceptions[0].ruleName: field not declared in schema; did you mean "ruleNames"? (ignored: the API server prunes it)',
      ],
    );
  });

  test("a non-mapping document is a problem, not a crash", () => {
    const r = compileException("PolicyException");
    assert.equal(r.ok, false);
  });
});
