/** Bylaw cannot load cluster or registry data yet: a rule that needs it is an error, never a pass on a default. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../engine/index.js";
import { clusterPolicy, pod } from "../../test/support/builders.js";
import { createOfflineEngine } from "../platform/offline-engine.js";
import { servePorts } from "./serve-ports.js";

const withContext = (entry: JsonObject): JsonObject =>
  clusterPolicy(
    "p",
    [
      {
        name: "r",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        context: [{ name: "cfg", ...entry }],
        // A default makes the rule pass when the entry is quietly left out.
        validate: {
          deny: { conditions: { any: [{ key: "{{ cfg.data.blocked || 'no' }}", operator: "Equals", value: "yes" }] } },
        },
      },
    ],
    { validationFailureAction: "Enforce" },
  );

function statuses(engine: ReturnType<typeof createEngine>, doc: JsonObject): [string, string][] {
  const compiled = engine.compile(doc);
  assert.ok(compiled.ok);
  return engine
    .validate(compiled.policy, { resource: pod({ name: "web" }), operation: "CREATE", namespaceLabels: {} })
    .rules.map((r) => [r.status, r.message]);
}

test("configMap, apiCall and globalReference entries are errors naming the kind in serve", () => {
  const engine = createEngine(servePorts());
  for (const [kind, entry] of [
    ["configMap", { configMap: { name: "c", namespace: "default" } }],
    ["apiCall", { apiCall: { urlPath: "/api/v1/namespaces", jmesPath: "items" } }],
    ["globalReference", { globalReference: { name: "g" } }],
    ["imageRegistry", { imageRegistry: { reference: "nginx:1" } }],
  ] as const) {
    const [result] = statuses(engine, withContext(entry));
    assert.equal(result?.[0], "error", kind);
    assert.match(result?.[1] ?? "", new RegExp(`failed to load context entry cfg: ${kind} context entries`), kind);
  }
});

test("offline (bylaw apply) too, unless a values file gives the name", () => {
  const engine = createOfflineEngine();
  assert.deepEqual(
    statuses(engine, withContext({ configMap: { name: "c", namespace: "default" } })).map((r) => r[0]),
    ["error"],
  );
  assert.deepEqual(
    statuses(engine, withContext({ imageRegistry: { reference: "nginx:1" } })).map((r) => r[0]),
    ["error"],
  );
  const compiled = engine.compile(withContext({ configMap: { name: "c", namespace: "default" } }));
  assert.ok(compiled.ok);
  const given = engine.validate(compiled.policy, {
    resource: pod({ name: "web" }),
    operation: "CREATE",
    namespaceLabels: {},
    variables: { cfg: { data: { blocked: "yes" } } },
  });
  assert.deepEqual(
    given.rules.map((r) => r.status),
    ["fail"],
  );
});

test("an image read with no registry says how to get one where it runs: --cluster in serve, --registry in the CLI", () => {
  const serve = servePorts().context.imageData("ghcr.io/acme/web:1.0");
  assert.ok(!serve.ok);
  assert.match(serve.error.message, /bylaw serve reads image registries only with --cluster/);
  assert.doesNotMatch(serve.error.message, /--registry/);
  const cli = createOfflineEngine().env.ports.context.imageData("ghcr.io/acme/web:1.0");
  assert.ok(!cli.ok);
  assert.match(cli.error.message, /run with --registry/);
});
