/** Matchers shared by rules written alike decide once per request, and every rule still gets its own answer. */
import { kyvernoCompiledRules } from "../policy/compiled-policy.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
};
const validate = { message: "m", pattern: { metadata: { labels: { app: "?*" } } } };
const pods = { any: [{ resources: { kinds: ["Pod"] } }] };

describe("validate: one match decision per request for rules written alike", () => {
  test("policies with the same match, one with an exclude, each get their own answer for one request", () => {
    const plain = compile(clusterPolicy("plain", [{ name: "r", match: pods, validate }]));
    const same = compile(clusterPolicy("same", [{ name: "r", match: pods, validate }]));
    const excluding = compile(
      clusterPolicy("excluding", [
        { name: "r", match: pods, exclude: { any: [{ resources: { names: ["web"] } }] }, validate },
      ]),
    );
    assert.equal(
      kyvernoCompiledRules(plain)[0]?.matcher,
      kyvernoCompiledRules(same)[0]?.matcher,
      "the matcher is shared",
    );
    const request: EngineRequest = {
      resource: pod({ name: "web", labels: {} }),
      operation: "CREATE",
      namespaceLabels: {},
    };
    assert.equal(engine.validate(plain, request).rules[0]?.status, "fail");
    assert.equal(engine.validate(same, request).rules[0]?.status, "fail");
    assert.deepEqual(engine.validate(excluding, request).rules, [], "excluded: no result");
    // Another request is decided afresh: a Pod named otherwise is not excluded.
    const other: EngineRequest = {
      resource: pod({ name: "api", labels: {} }),
      operation: "CREATE",
      namespaceLabels: {},
    };
    assert.equal(engine.validate(excluding, other).rules[0]?.status, "fail");
    assert.equal(engine.validate(plain, other).rules[0]?.status, "fail");
  });

  test("a namespaced Policy and a ClusterPolicy written alike decide separately (the Policy sees only its namespace)", () => {
    const cluster = compile(clusterPolicy("c", [{ name: "r", match: pods, validate }]));
    const namespaced = compile({
      ...clusterPolicy("n", [{ name: "r", match: pods, validate }]),
      kind: "Policy",
      metadata: { name: "n", namespace: "team-a" },
    });
    const request: EngineRequest = {
      resource: pod({ name: "web", labels: {}, namespace: "team-b" }),
      operation: "CREATE",
      namespaceLabels: {},
    };
    assert.equal(engine.validate(cluster, request).rules[0]?.status, "fail");
    assert.deepEqual(engine.validate(namespaced, request).rules, []);
  });
});
