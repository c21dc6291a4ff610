/**
 * A MutatingPolicy's ApplyConfiguration in the webhook, typed with the cluster's OpenAPI v3 (serve
 * --cluster): the review waits for its object's group-version to be read, a field the cluster's
 * schema does not declare is the policy's error, and a kind not typed in time is an error too,
 * never an unchecked merge.
 */
import { Buffer } from "node:buffer";
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  applyJsonPatch,
  type JsonObject,
  type JsonPatchOp,
  typedKindsOf,
  typedSchemaFromOpenApi,
} from "../../engine/index.js";
import { createClusterTypedKinds } from "../../kube/openapi-typed-kinds.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { fakeOpenApiServer, WIDGET_SERVED } from "../../../test/support/openapi-widget.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { typesPort } from "../app/live-context-setup.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import type { TypesPort } from "./deps.js";
import { handleMutateBounded, type HandlerResult } from "./index.js";

/** An API server's /openapi/v3 that serves example.io/v1, counting its reads. */
const openApiServer = () => fakeOpenApiServer({ ...WIDGET_SERVED });

const setSpec = (fields: string): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "MutatingPolicy",
  metadata: { name: "widget-spec" },
  spec: {
    failurePolicy: "Fail",
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

const widget: JsonObject = {
  apiVersion: "example.io/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "default" },
  spec: { size: 1 },
};

async function review(policy: JsonObject, types: (cluster: ReturnType<typeof clusterTypes>) => TypesPort | undefined) {
  const cluster = clusterTypes();
  const fake = fakeDeps({
    policies: [policy],
    ports: { ...fakePorts(), typedKinds: cluster.typed.kinds },
    compile: (doc, engine) => {
      const c = compileCelPolicy(doc, engine);
      if (c.policy === undefined) throw new Error(JSON.stringify(c.problems));
      return c.policy;
    },
  });
  const port = types(cluster);
  const body = reviewOf(widget, { resource: { group: "example.io", version: "v1", resource: "widgets" } });
  const result: HandlerResult = await handleMutateBounded(body, {
    ...fake.deps,
    ...(port !== undefined ? { types: port } : {}),
  });
  assert.equal(result.status, 200);
  if (result.status !== 200) throw new Error("unreachable");
  return { response: result.body.response, reads: cluster.server.reads };
}

function clusterTypes() {
  const server = openApiServer();
  const typed = createClusterTypedKinds({
    client: server,
    schemaOf: typedSchemaFromOpenApi,
    kindsOf: (data) => typedKindsOf(() => data),
  });
  return { server, typed };
}

test("the review waits for its group-version's schema, then a declared field is patched", async () => {
  const { response, reads } = await review(setSpec("size: 3"), (c) => typesPort(c.typed));
  assert.equal(response.allowed, true);
  const ops = JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")) as JsonPatchOp[];
  const out = applyJsonPatch(widget, ops);
  assert.ok(out.ok);
  assert.deepEqual((out.value as JsonObject)["spec"], { size: 3 });
  assert.deepEqual(reads, ["/openapi/v3", "/openapi/v3/apis/example.io/v1?hash=A"]);
});

test("a field the cluster's schema does not declare is the policy's error (failurePolicy Fail denies)", async () => {
  const { response } = await review(setSpec('color: "red"'), (c) => typesPort(c.typed));
  assert.equal(response.allowed, false);
  assert.match(response.status?.message ?? "", /widget-spec/);
  assert.match(response.status?.message ?? "", /failed to convert patch object to typed object: .*color/);
});

test("a kind not typed by the time it is evaluated is an error naming why, never an unchecked merge", async () => {
  // No port (or one whose time ran out): nothing was read.
  for (const port of [undefined, { ready: () => false, load: () => Promise.resolve() }]) {
    const { response, reads } = await review(setSpec("size: 3"), () => port);
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /type converter must not be nil: the cluster's OpenAPI v3 for example.io\/v1 was not read in time/,
    );
    assert.deepEqual(reads, []);
  }
});
