/**
 * Result messages in Kyverno v1.19's words (pkg/engine/handlers/validation/validate_resource.go,
 * pkg/engine/mutate/mutation.go): users grep these texts and Policy Reporter shows them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());

function compiled(rules: JsonObject[]) {
  const r = engine.compile(clusterPolicy("p", rules));
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  return r.policy;
}

function validate(rules: JsonObject[], resource: JsonObject) {
  return engine.validate(compiled(rules), { resource, operation: "CREATE", namespaceLabels: {} }).rules;
}

const eachContainer = (inner: JsonObject): JsonObject => ({
  foreach: [{ list: "request.object.spec.containers", ...inner }],
});

describe("validate result texts", () => {
  test("a foreach rule whose elements pass says 'rule passed'", () => {
    const rule = podRule("each", eachContainer({ pattern: { image: "?*" } }));
    const [r] = validate([rule], pod({ name: "a" }));
    assert.deepEqual([r?.status, r?.message], ["pass", "rule passed"]);
  });
  test("a foreach deny rule that denies nothing says 'rule passed' too", () => {
    const deny = { conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "zzz" }] } };
    const [r] = validate([podRule("each", eachContainer({ deny }))], pod({ name: "a" }));
    assert.deepEqual([r?.status, r?.message], ["pass", "rule passed"]);
  });
  test("a pattern rule still says \"validation rule 'x' passed.\"", () => {
    const [r] = validate([podRule("plain", { pattern: { metadata: { name: "?*" } } })], pod({ name: "a" }));
    assert.equal(r?.message, "validation rule 'plain' passed.");
  });
  test("a pattern whose variable cannot be resolved: 'variable substitution failed: …' with no rule name", () => {
    const rule = podRule("subst", { pattern: { metadata: { name: "{{ request.object.nosuch }}" } } });
    const [r] = validate([rule], pod({ name: "a" }));
    assert.equal(r?.status, "error");
    assert.match(r?.message ?? "", /^variable substitution failed: failed to resolve request\.object\.nosuch at path /);
  });
  test("a failing pattern whose message cannot be substituted still fails, with the mismatch in Kyverno's text", () => {
    const rule = podRule("msg", {
      message: "bad {{ request.object.nosuch.x }}",
      pattern: { metadata: { name: "zzz" } },
    });
    const [r] = validate([rule], pod({ name: "a" }));
    assert.deepEqual(
      [r?.status, r?.message, r?.path],
      [
        "fail",
        "validation error: variables substitution error in rule msg execution error: resource value 'a' does not match 'zzz' at path /metadata/name/",
        "/metadata/name/",
      ],
    );
  });
});

describe("mutate result texts", () => {
  test("a patch whose variable cannot be resolved: 'variable substitution failed: …' with no rule name", () => {
    const rule = {
      name: "m",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { x: "{{ request.object.nosuch }}" } } } },
    };
    const out = engine.mutate(compiled([rule]), {
      resource: pod({ name: "a" }),
      operation: "CREATE",
      namespaceLabels: {},
    });
    const [r] = out.rules;
    assert.equal(r?.status, "error");
    assert.match(r?.message ?? "", /^variable substitution failed: failed to resolve request\.object\.nosuch at path /);
  });
});
