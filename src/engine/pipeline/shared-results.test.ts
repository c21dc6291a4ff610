/**
 * Rule results shared across the policies of one request (CompiledRule `shareKey`, issue 39): copies
 * of a rule evaluated against one prepared request give what each gives alone, and what of its
 * policy a rule reads (the policy's failure action, on UPDATE) keeps two copies apart.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { kyvernoCompiledRules, type CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";

const engine = createEngine(fakePorts());
const podMatch = { any: [{ resources: { kinds: ["Pod"] } }] };

function policy(name: string, rule: JsonObject, spec: JsonObject = {}): CompiledPolicy {
  const r = engine.compile(clusterPolicy(name, [{ name: "r", match: podMatch, ...rule }], spec));
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
}

const imagesTagged = {
  message: "images need a tag",
  foreach: [
    {
      list: "request.object.spec.containers",
      deny: { conditions: { any: [{ key: "{{ element.image }}", operator: "NotEquals", value: "*:*" }] } },
    },
  ],
};

function withImage(image: string): JsonObject {
  const p = pod({ name: "web" });
  (p["spec"] as { containers: JsonObject[] }).containers = [{ name: "app", image }];
  return p;
}

test("which rules share their result: validate rules that read the request and their own text only", () => {
  const shared = (rule: JsonObject): boolean => kyvernoCompiledRules(policy("p", rule))[0]?.shareKey !== undefined;
  assert.equal(shared({ validate: imagesTagged }), true);
  assert.equal(shared({ validate: { podSecurity: { level: "baseline", version: "latest" } } }), false);
  assert.equal(shared({ context: [{ name: "x", variable: { value: "y" } }], validate: imagesTagged }), false);
  assert.equal(shared({ validate: { cel: { expressions: [{ expression: "true" }] } } }), false);
});

test("copies of a rule against one prepared request answer as each does alone", () => {
  const copies = ["a", "b", "c"].map((n) => policy(n, { validate: imagesTagged }));
  for (const image of ["nginx", "nginx:1.27"])
    for (const operation of ["CREATE", "UPDATE"] as const) {
      const request: EngineRequest = {
        resource: withImage(image),
        oldResource: withImage("nginx"),
        operation,
        namespaceLabels: {},
      };
      const prepared = engine.prepare(request);
      const together = copies.map((p) => engine.validate(p, prepared).rules);
      assert.deepEqual(
        together,
        copies.map((p) => engine.validate(p, { ...request }).rules),
      );
      // The copies were given one result, not three.
      assert.equal(together[1]?.[0], together[0]?.[0]);
    }
});

test("on UPDATE, a copy under Enforce lets a pre-existing violation pass while its Audit twin still fails", () => {
  const enforce = policy("enforce", { validate: imagesTagged }, { validationFailureAction: "Enforce" });
  const audit = policy("audit", { validate: imagesTagged }, { validationFailureAction: "Audit" });
  const prepared = engine.prepare({
    resource: withImage("nginx"),
    oldResource: withImage("nginx"),
    operation: "UPDATE",
    namespaceLabels: {},
  });
  assert.equal(engine.validate(enforce, prepared).rules[0]?.status, "skip");
  assert.equal(engine.validate(audit, prepared).rules[0]?.status, "fail");
});
