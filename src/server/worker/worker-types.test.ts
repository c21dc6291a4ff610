/**
 * A MutatingPolicy's ApplyConfiguration in an evaluation worker is typed with the cluster's kinds
 * the main thread has read (serve --cluster), as on the main thread: the worker is sent them before
 * a job whenever they changed.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import {
  createEngine,
  type JsonObject,
  type RuleResult,
  typedKindsOf,
  typedSchemaFromOpenApi,
} from "../../engine/index.js";
import { createClusterTypedKinds } from "../../kube/openapi-typed-kinds.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { fakeOpenApiServer, WIDGET_SERVED } from "../../../test/support/openapi-widget.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import type { PolicySnapshot } from "../types.js";
import { createWorkerPool } from "./worker-pool.js";

const types = createClusterTypedKinds({
  client: fakeOpenApiServer(WIDGET_SERVED),
  schemaOf: typedSchemaFromOpenApi,
  kindsOf: (data) => typedKindsOf(() => data),
});

const engine = createEngine({ ...fakePorts(), typedKinds: types.kinds });
const policy = (name: string, fields: string): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name },
  spec: {
    matchConstraints: {
      resourceRules: [
        { apiGroups: ["example.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["widgets"] },
      ],
    },
    mutations: [
      { patchType: "ApplyConfiguration", applyConfiguration: { expression: `Object{spec: Object.spec{${fields}}}` } },
    ],
  },
});
const compiled = [policy("declared", "size: 3"), policy("undeclared", 'color: "red"')].map((doc) => {
  const c = compileCelPolicy(doc, engine);
  if (c.policy === undefined) throw new Error(JSON.stringify(c.problems));
  return c.policy;
});
const snapshot: PolicySnapshot = { policies: compiled, generation: 1, loadedAt: 0 };
const widget: JsonObject = { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } };
const now = (): number => performance.now() / 1000;

describe("evaluation worker: the cluster's types", () => {
  const pool = createWorkerPool({ size: 1, now, types });
  after(() => pool.close());

  /** Each policy's rule results, in the worker and on this thread, and the worker's patched object. */
  async function both(index: number) {
    const p = compiled[index];
    assert.ok(p !== undefined);
    const request = {
      resource: widget,
      operation: "CREATE" as const,
      namespaceLabels: {},
      matchKind: { group: "example.io", version: "v1", kind: "Widget", resource: "widgets" },
    };
    const outcome = await pool.run({
      kind: "mutate",
      snapshot,
      policies: [p],
      request,
      object: widget,
      deadlineAt: now() + 10,
    });
    const local = engine.mutate(p, request);
    const summary = (rules: readonly RuleResult[]) => rules.map((r) => `${r.status}: ${r.message}`);
    return {
      worker: summary(outcome.done.flatMap((d) => d.response.rules)),
      here: summary(local.rules),
      resource: outcome.resource,
    };
  }

  test("before the group-version is read, the worker errs as this thread does, naming why", async () => {
    const r = await both(0);
    assert.deepEqual(r.worker, r.here);
    assert.match(r.worker[0] ?? "", /^error: .*the cluster's OpenAPI v3 for example.io\/v1 was not read in time/);
  });

  test("once read, the worker is sent the new types: a declared field patches, an undeclared one errs", async () => {
    await types.load(["example.io/v1"]);
    const declared = await both(0);
    assert.deepEqual(declared.worker, declared.here);
    assert.deepEqual(declared.worker, ["pass: success"]);
    assert.deepEqual(declared.resource?.["spec"], { size: 3 });
    const undeclared = await both(1);
    assert.deepEqual(undeclared.worker, undeclared.here);
    assert.match(undeclared.worker[0] ?? "", /^error: .*failed to convert patch object to typed object: .*color/);
  });
});
