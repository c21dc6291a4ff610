/**
 * Equals/NotEquals between a quantity and a string that is not one, as Kyverno v1.19's operator
 * handlers settle it (pkg/engine/variables/operator/equal.go, notequal.go): they dispatch on the KEY.
 * A quantity key ("300Mi") against a non-quantity string value ("") fails ParseQuantity on the value
 * and answers false for both operators. A non-quantity key ("") is not parsed as a quantity at all:
 * it falls through to the wildcard match, so Equals is false and NotEquals true. The foreach case the
 * issue saw (a container's memory request, "" when missing) therefore depends on which side the
 * resource's value is written: element.memory as the key skips with both operators when the value is
 * "", and a missing request ("") as the key passes NotEquals "300Mi". Bylaw answers as Kyverno does.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";
import { equals, notEquals } from "./equal.js";

describe("quantity against a non-quantity string", () => {
  test("a quantity key against '': false both ways", () => {
    assert.equal(equals("300Mi", ""), false);
    assert.equal(notEquals("300Mi", ""), false);
  });
  test("'' as the key against a quantity: Equals false, NotEquals true (wildcard match of the key)", () => {
    assert.equal(equals("", "300Mi"), false);
    assert.equal(notEquals("", "300Mi"), true);
  });
  // equal.go/notequal.go: a string key whose value is not a string falls past the quantity branch to the
  // string check, which answers false for Equals and true for NotEquals; a null key is an unsupported type (false both).
  test("a quantity key against a value that is not a string: Equals false, NotEquals true", () => {
    for (const value of [0, 300, true, null, ["300Mi"], { q: "300Mi" }]) {
      assert.equal(equals("300Mi", value), false, JSON.stringify(value));
      assert.equal(notEquals("300Mi", value), true, JSON.stringify(value));
    }
  });
  test("a number, bool, list or map key against a string that is no such value: Equals false, NotEquals true", () => {
    for (const key of [1, 1.5, true, ["a"], { a: 1 }]) {
      assert.equal(equals(key, "300Mi"), false, JSON.stringify(key));
      assert.equal(notEquals(key, "300Mi"), true, JSON.stringify(key));
    }
  });
  test("a null key is not compared: false both ways", () => {
    assert.equal(equals(null, ""), false);
    assert.equal(notEquals(null, "300Mi"), false);
  });
  test("two quantities compare as quantities", () => {
    assert.equal(equals("300Mi", "314572800"), true);
    assert.equal(notEquals("0.3Gi", "300Mi"), true);
  });
});

const engine = createEngine(fakePorts());

function foreachWith(key: string, operator: string, value: string): JsonObject {
  return clusterPolicy("p", [
    podRule("mem", {
      message: "memory",
      foreach: [
        {
          list: "request.object.spec.containers",
          preconditions: { all: [{ key, operator, value }] },
          deny: {
            conditions: { any: [{ key: "{{ element.name }}", operator: "Equals", value: "{{ element.name }}" }] },
          },
        },
      ],
    }),
  ]);
}

function applied(doc: JsonObject): string {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  const containers = [
    { name: "with", image: "nginx", resources: { requests: { memory: "300Mi" } } },
    { name: "without", image: "nginx" },
  ];
  const [rule] = engine.validate(r.policy, {
    resource: pod({ name: "web", containers }),
    operation: "CREATE",
    namespaceLabels: {},
  }).rules;
  return rule === undefined ? "no result" : `${rule.status}: ${rule.message}`;
}

describe("in a foreach precondition", () => {
  const memory = "{{ element.resources.requests.memory || '' }}";
  test("memory (key) NotEquals '': no element applies ('300Mi' vs '' is false both ways, '' vs '' matches)", () => {
    // "300Mi" vs "" is false; "" vs "" is not NotEquals either: no element applies.
    assert.equal(applied(foreachWith(memory, "NotEquals", "")), "no result");
  });
  test("memory (key) NotEquals '300Mi': only the container without a request applies", () => {
    assert.equal(applied(foreachWith(memory, "NotEquals", "300Mi")), "fail: validation failure: memory");
  });
  test("memory (key) Equals '300Mi': the container with the request applies", () => {
    assert.equal(applied(foreachWith(memory, "Equals", "300Mi")), "fail: validation failure: memory");
  });
});
