/**
 * Kyverno loads a context entry when a query names it (deferred loading): an entry whose source
 * fails is an error only for the rule that reads it, never for one that skips first or reads
 * something else, and never a pass for one that reads it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";

/** An apiCall whose call answers 404 (the fake ports know only `/ok`). */
const broken = { name: "owner", apiCall: { urlPath: "/missing", jmesPath: "metadata.name" } };
const working = { name: "limits", apiCall: { urlPath: "/ok" } };

function rule(extra: JsonObject): JsonObject {
  return { name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, ...extra };
}

function validate(rules: JsonObject[], resource: JsonObject = pod({ name: "web", labels: { app: "web" } })) {
  const engine = createEngine(fakePorts({ apiCalls: { "/ok": { max: 3 } } }));
  const compiled = engine.compile(clusterPolicy("p", rules));
  if (!compiled.ok) throw new Error(compiled.problems.map((p) => p.message).join("; "));
  return engine
    .validate(compiled.policy, { resource, operation: "CREATE", namespaceLabels: {} })
    .rules.map((r) => [r.status, r.message]);
}

const deny = (key: string): JsonObject => ({
  message: "denied",
  deny: { conditions: { any: [{ key, operator: "Equals", value: "x" }] } },
});

describe("context entries load as Kyverno's deferred loading does", () => {
  test("an entry that fails to load and is never read does not make the rule an error", () => {
    const out = validate([rule({ context: [broken, working], validate: deny("{{ limits.max }}") })]);
    assert.deepEqual(out, [["pass", "validation rule 'r' passed."]]);
  });

  test("preconditions that skip before the failed entry is read: a skip", () => {
    const preconditions = { all: [{ key: "{{ request.object.metadata.name }}", operator: "Equals", value: "db" }] };
    const out = validate([rule({ context: [broken], preconditions, validate: deny("{{ owner }}") })]);
    assert.equal(out[0]?.[0], "skip");
  });

  test("a rule that reads the failed entry is an error naming it and why, never a pass", () => {
    const out = validate([rule({ context: [broken, working], validate: deny("{{ owner }}") })]);
    assert.equal(out[0]?.[0], "error");
    assert.match(String(out[0]?.[1]), /failed to resolve owner at path .*: failed to fetch data for APICall: HTTP 404/);
  });

  test("a field of another object that shares the entry's name is not a read of it", () => {
    const named = { ...broken, name: "name" };
    const out = validate([rule({ context: [named], validate: deny("{{ request.object.metadata.name }}") })]);
    assert.deepEqual(out, [["pass", "validation rule 'r' passed."]]);
  });

  test("an entry that reads a failed one fails with it; a variable's default stands in for it", () => {
    const reads = { name: "who", variable: { jmesPath: "owner" } };
    const failed = validate([rule({ context: [broken, reads], validate: deny("{{ who }}") })]);
    assert.equal(failed[0]?.[0], "error");
    assert.match(
      String(failed[0]?.[1]),
      /failed to load context entry who: failed to fetch data for APICall: HTTP 404/,
    );
    const withDefault = { name: "who", variable: { jmesPath: "owner", default: "x" } };
    const defaulted = validate([rule({ context: [broken, withDefault], validate: deny("{{ who }}") })]);
    assert.deepEqual(defaulted, [["fail", "denied"]]);
  });

  test("a foreach list that names the failed entry is an error", () => {
    const foreach = [
      { list: "owner.items", deny: { conditions: { any: [{ key: "a", operator: "Equals", value: "a" }] } } },
    ];
    const out = validate([rule({ context: [broken], validate: { message: "m", foreach } })]);
    assert.equal(out[0]?.[0], "error");
    assert.match(String(out[0]?.[1]), /failed to fetch data for APICall: HTTP 404/);
  });
});
