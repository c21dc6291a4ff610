/**
 * A request is prepared once (`engine.prepare`) for every policy evaluated against it; the
 * caller's EngineRequest is never written to, so a deeply frozen one evaluates as any other.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { clusterPolicy, pod, podRule } from "../../../test/support/builders.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";

const engine = createEngine(fakePorts());
const compile = (doc: JsonObject): CompiledPolicy => {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.policy;
};

/** Freezes a value and everything it holds, functions' results aside. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const needsLabel = compile(
  clusterPolicy("needs-label", [
    podRule("app", { message: "app label", pattern: { metadata: { labels: { app: "?*" } } } }),
  ]),
);
const usesImages = compile(
  clusterPolicy("tagged", [
    podRule("tag", {
      deny: {
        conditions: { any: [{ key: "{{ images.containers.*.tag | [0] }}", operator: "Equals", value: "latest" }] },
      },
    }),
  ]),
);
const byOperation = compile(
  clusterPolicy("no-delete", [
    {
      name: "deny-delete",
      match: { any: [{ resources: { kinds: ["Pod"], operations: ["DELETE"] } }] },
      validate: {
        message: "no",
        deny: { conditions: { any: [{ key: "{{ request.operation }}", operator: "Equals", value: "DELETE" }] } },
      },
    },
  ]),
);
const addLabel = compile(
  clusterPolicy("add-label", [
    {
      name: "add",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { team: "{{ request.object.metadata.name }}" } } } },
    },
  ]),
);
const makeConfig = compile(
  clusterPolicy("make-config", [
    {
      name: "gen",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      generate: {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "cm-{{ request.object.metadata.name }}",
        namespace: "default",
        data: { data: { a: "b" } },
      },
    },
  ]),
);
const celLabel = compile(
  clusterPolicy("cel-label", [
    podRule("app-cel", {
      cel: {
        expressions: [
          { expression: "has(object.metadata.labels) && 'app' in object.metadata.labels", message: "app label (CEL)" },
        ],
      },
    }),
  ]),
);
const noExisting = {
  list: () => ({ ok: true as const, value: [] }),
  get: () => ({ ok: true as const, value: undefined }),
};

const request = (resource: JsonObject, extra: Partial<EngineRequest> = {}): EngineRequest => ({
  resource,
  operation: "CREATE",
  namespaceLabels: {},
  ...extra,
});

describe("engine.prepare", () => {
  test("a deeply frozen request evaluates (validate, mutate, generate, prepared or not) as an unfrozen one does", () => {
    const make = (): EngineRequest =>
      request(pod({ name: "web", containers: [{ name: "a", image: "nginx:latest" }] }), {
        userInfo: { username: "alice", groups: ["dev"], roles: [], clusterRoles: [] },
        variables: { "request.dryRun": true },
        namespaceLabels: { team: "a" },
      });
    const frozen = deepFreeze(make());
    const prepared = engine.prepare(frozen);
    for (const policy of [needsLabel, usesImages, celLabel]) {
      const expected = engine.validate(policy, make());
      assert.deepEqual(engine.validate(policy, frozen), expected);
      assert.deepEqual(engine.validate(policy, prepared), expected);
    }
    assert.equal(engine.validate(usesImages, prepared).rules[0]?.status, "fail", "images come from the frozen request");
    assert.equal(engine.validate(celLabel, prepared).rules[0]?.status, "fail", "validate.cel reads the frozen request");
    const mutated = engine.mutate(addLabel, frozen);
    assert.deepEqual(mutated, engine.mutate(addLabel, make()));
    assert.equal((mutated.patchedResource?.["metadata"] as JsonObject)["labels"] !== undefined, true);
    assert.deepEqual(
      engine.generate(makeConfig, prepared, noExisting),
      engine.generate(makeConfig, make(), noExisting),
    );
    assert.deepEqual(engine.mutateAll([addLabel], frozen).patch, engine.mutateAll([addLabel], make()).patch);
    // An unfrozen request is left as it was given too: no memo, visible or hidden, is written onto it.
    const plain = make();
    engine.validate(needsLabel, plain);
    engine.validate(usesImages, engine.prepare(plain));
    engine.validate(celLabel, plain);
    engine.mutate(addLabel, plain);
    assert.deepEqual(Reflect.ownKeys(plain), Reflect.ownKeys(make()));
  });

  test("the base context is built once per prepared request, with and without images, and kept apart", () => {
    const prepared = engine.prepare(request(pod({ name: "web" })));
    const plain = prepared.base(false);
    assert.equal(prepared.base(false), plain);
    const withImages = prepared.base(true);
    assert.notEqual(withImages, plain);
    assert.equal(prepared.base(true), withImages);
    assert.equal(plain["images"], undefined);
    assert.ok(withImages["images"] !== undefined);
    // Another preparation of the same request builds its own.
    assert.notEqual(engine.prepare(prepared.request).base(false), plain);
  });

  test("the DELETE subject is the old object; the operation is the one the rules see", () => {
    const old = pod({ name: "gone" });
    const del = engine.prepare({ resource: {}, oldResource: old, operation: "DELETE", namespaceLabels: {} });
    assert.equal(del.subject, old);
    assert.equal(del.operation, "DELETE");
    const r = engine.validate(byOperation, del);
    assert.equal(r.resource, old);
    assert.equal(r.rules[0]?.status, "fail");
    // An update's subject is the new object; a variable may set the operation the rules see.
    const now = pod({ name: "web" });
    const upd = engine.prepare({
      resource: now,
      oldResource: pod({ name: "web-old" }),
      operation: "UPDATE",
      namespaceLabels: {},
    });
    assert.equal(upd.subject, now);
    assert.equal(engine.prepare(request(now, { variables: { "request.operation": "UPDATE" } })).operation, "UPDATE");
  });

  test("many policies on one prepared request answer as each would on the request alone", () => {
    const policies = [
      needsLabel,
      usesImages,
      byOperation,
      compile(clusterPolicy("same-match", [podRule("app", { message: "m", pattern: { metadata: { name: "web*" } } })])),
    ];
    for (const resource of [
      pod({ name: "web" }),
      pod({ name: "api", labels: { app: "x" } }),
      pod({ name: "web2", containers: [{ name: "a", image: "a:latest" }] }),
    ]) {
      const prepared = engine.prepare(request(resource));
      for (const p of policies)
        assert.deepEqual(
          engine.validate(p, prepared),
          engine.validate(p, request(resource)),
          `${p.name} on ${JSON.stringify(resource)}`,
        );
    }
  });
});
