/** Policy parsing, the admission-time checks of spec §2.8, and compile-once behaviour. */
import { kyvernoCompiledRules } from "./compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const ok = podRule("r", { pattern: { metadata: { name: "?*" } } });

function problems(doc: JsonObject): string[] {
  const r = engine.compile(doc);
  return r.ok ? [] : r.problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

describe("compilePolicy", () => {
  test("a valid policy compiles with its autogen rules after the originals", () => {
    const r = engine.compile(clusterPolicy("p", [ok]));
    assert.ok(r.ok);
    assert.deepEqual(
      kyvernoCompiledRules(r.policy).map((x) => x.name),
      ["r", "autogen-r", "autogen-cronjob-r"],
    );
    assert.equal(kyvernoCompiledRules(r.policy)[1]?.autogenOf, "r");
  });

  test("scored, severity and category come from annotations", () => {
    const r = engine.compile(
      clusterPolicy("p", [ok], {}, { "policies.kyverno.io/scored": "false", "policies.kyverno.io/severity": "high" }),
    );
    assert.ok(r.ok);
    assert.equal(r.policy.scored, false);
    assert.equal(r.policy.severity, "high");
  });

  const cases: [string, JsonObject, RegExp][] = [
    [
      "wrong apiVersion",
      { ...clusterPolicy("p", [ok]), apiVersion: "kyverno.io/v9" },
      /^apiVersion: unsupported apiVersion/,
    ],
    ["missing name", { ...clusterPolicy("p", [ok]), metadata: {} }, /^metadata\.name: Required value/],
    ["duplicate rule names", clusterPolicy("p", [ok, ok]), /Duplicate rule name: 'r'/],
    [
      "two rule types",
      clusterPolicy("p", [{ ...ok, mutate: { patchStrategicMerge: {} } }]),
      /Multiple operations defined/,
    ],
    [
      "no rule type",
      clusterPolicy("p", [{ name: "r", match: ok["match"] ?? {} }]),
      /No operation defined in the rule 'r'/,
    ],
    [
      "any and all together",
      clusterPolicy("p", [
        { ...ok, match: { any: [{ resources: { kinds: ["Pod"] } }], all: [{ resources: { kinds: ["Pod"] } }] } },
      ]),
      /^spec\.rules\[0\]\.match: .*"any" and "all" may not be set together/,
    ],
    [
      "unknown operator",
      clusterPolicy("p", [
        podRule("r", { deny: { conditions: { any: [{ key: "a", operator: "Equalz", value: "a" }] } } }),
      ]),
      /operator.*invalid/,
    ],
    [
      "ClusterPolicy with a namespace",
      { ...clusterPolicy("p", [ok]), metadata: { name: "p", namespace: "x" } },
      /must not set metadata\.namespace/,
    ],
    [
      "user info variable with background",
      clusterPolicy("p", [podRule("r", { message: "{{ request.userInfo.username }}", pattern: { metadata: {} } })]),
      /only select variables are allowed in background mode/,
    ],
    [
      "bad JMESPath",
      clusterPolicy("p", [podRule("r", { message: "{{ foo[ }}", pattern: { metadata: {} } })], { background: false }),
      /spec\.rules\[0\]/,
    ],
    [
      "reserved context name",
      clusterPolicy("p", [{ ...ok, context: [{ name: "request", variable: { value: 1 } }] }]),
      /conflicts with a pre-defined variable/,
    ],
    [
      "generateExistingOnPolicyUpdate",
      clusterPolicy("p", [ok], { generateExistingOnPolicyUpdate: true }),
      /remove the deprecated field/,
    ],
    ["two validate kinds", clusterPolicy("p", [podRule("r", { pattern: {}, deny: {} })]), /exactly one of pattern/],
  ];
  for (const [name, doc, want] of cases) {
    test(`rejects: ${name}`, () => {
      const got = problems(doc);
      assert.ok(
        got.some((p) => want.test(p)),
        `expected ${want} in ${JSON.stringify(got)}`,
      );
    });
  }

  test("user info in a variable of a nested field name is allowed with background", () => {
    const doc = clusterPolicy("p", [
      podRule("r", { message: "{{ request.object.spec.serviceAccountName }}", pattern: { metadata: {} } }),
    ]);
    assert.deepEqual(problems(doc), []);
  });

  test("lower-case audit is accepted with a warning", () => {
    const r = engine.compile(clusterPolicy("p", [ok], { validationFailureAction: "audit" }));
    assert.ok(r.ok);
    assert.ok(r.policy.warnings.some((w) => w.severity === "warning" && /deprecated/.test(w.message)));
  });
});

test("a CleanupPolicy is checked against its CRD before it becomes a not-yet-supported placeholder", () => {
  const doc = {
    apiVersion: "kyverno.io/v2",
    kind: "ClusterCleanupPolicy",
    metadata: { name: "c" },
    spec: { match: { any: [] }, schedule: "* * * * *", condition: {} },
  };
  const bad = engine.compile(doc);
  assert.equal(bad.ok, false);
  assert.deepEqual(bad.ok ? [] : bad.problems.map((p) => p.path), ["spec.condition"]);
  assert.equal(engine.compile({ ...doc, spec: { match: doc.spec.match, schedule: doc.spec.schedule } }).ok, true);
});

test("a policy with an undeclared or mistyped field does not compile, and says where", () => {
  const doc = {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      background: "yes",
      rules: [{ name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validat: { pattern: {} } }],
    },
  };
  const r = engine.compile(doc);
  assert.equal(r.ok, false);
  assert.deepEqual(r.ok ? [] : r.problems.map((p) => `${p.path}: ${p.message}`).sort(), [
    'spec.background: Invalid value: "string": spec.background in body must be of type boolean',
    'spec.rules[0].validat: field not declared in schema; did you mean "validate"?',
  ]);
});
