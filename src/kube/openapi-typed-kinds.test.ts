/** The cluster's OpenAPI v3 loaded per group-version, with a fake client counting its reads. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { typedKindsOf, typedSchemaFromOpenApi } from "../engine/index.js";
import { createClusterTypedKinds } from "./openapi-typed-kinds.js";

const convert = (documents: readonly unknown[]) => typedKindsOf(() => typedSchemaFromOpenApi(documents));

const widgetDoc = {
  components: {
    schemas: {
      "io.example.v1.Widget": {
        type: "object",
        "x-kubernetes-group-version-kind": [{ group: "example.io", version: "v1", kind: "Widget" }],
        properties: {
          apiVersion: { type: "string" },
          kind: { type: "string" },
          metadata: { type: "object", additionalProperties: true },
          spec: { type: "object", properties: { size: { type: "integer" } } },
        },
      },
    },
  },
};

function fakeClient(answers: Record<string, unknown>) {
  const reads: string[] = [];
  return {
    reads,
    getJson(path: string): Promise<unknown> {
      reads.push(path);
      const a = answers[path];
      return a instanceof Error
        ? Promise.reject(a)
        : a === undefined
          ? Promise.reject(new Error("404"))
          : Promise.resolve(a);
    },
  };
}

const index = {
  paths: {
    "apis/example.io/v1": { serverRelativeURL: "/openapi/v3/apis/example.io/v1?hash=A" },
    "apis/broken.io/v1": { serverRelativeURL: "/openapi/v3/apis/broken.io/v1?hash=B" },
  },
};

test("a group-version is fetched once, on load, and types its kinds from the cluster's schema", async () => {
  const client = fakeClient({ "/openapi/v3": index, "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc });
  const typed = createClusterTypedKinds({ client, convert });
  assert.deepEqual(await typed.load(["example.io/v1", "example.io/v1"]), []);
  assert.deepEqual(await typed.load(["example.io/v1"]), []);
  assert.deepEqual(client.reads, ["/openapi/v3", "/openapi/v3/apis/example.io/v1?hash=A"]);
  const type = typed.kinds.typeOf("example.io/v1", "Widget");
  assert.notEqual(type, undefined);
  const resolved = typed.kinds.resolve(type ?? "x");
  assert.deepEqual(typeof resolved === "object" && "m" in resolved ? Object.keys(resolved.m) : [], [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
  ]);
  typed.invalidate();
  await typed.load(["example.io/v1"]);
  assert.equal(client.reads.length, 4);
});

test("a kind the cluster has no schema for is an error naming why, never a pass", async () => {
  const client = fakeClient({
    "/openapi/v3": index,
    "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc,
    "/openapi/v3/apis/broken.io/v1?hash=B": new Error("connection refused"),
  });
  const typed = createClusterTypedKinds({ client, convert });
  const failures = await typed.load(["example.io/v1", "broken.io/v1", "none.io/v1"]);
  assert.deepEqual(failures, [
    "cannot read the cluster's OpenAPI v3 for broken.io/v1 (/openapi/v3/apis/broken.io/v1?hash=B): connection refused",
  ]);
  const refusal = (apiVersion: string, kind: string) =>
    typed.kinds.typeOf(apiVersion, kind) === undefined ? typed.kinds.missing?.(apiVersion, kind) : undefined;
  assert.equal(
    refusal("none.io/v1", "Thing"),
    "type converter must not be nil: the cluster's OpenAPI v3 serves no schema for none.io/v1",
  );
  assert.equal(
    refusal("example.io/v1", "Gadget"),
    "type converter must not be nil: the cluster's OpenAPI v3 for example.io/v1 declares no kind Gadget",
  );
  assert.match(refusal("broken.io/v1", "Thing") ?? "", /cannot read the cluster's OpenAPI v3 for broken.io\/v1/);
});

test("an index that cannot be read is an error for every group-version asked, retried on the next load", async () => {
  const client = fakeClient({ "/openapi/v3": new Error("Forbidden") });
  const typed = createClusterTypedKinds({ client, convert });
  assert.deepEqual(await typed.load(["example.io/v1"]), [
    "cannot read the cluster's OpenAPI v3 index (/openapi/v3): Forbidden",
  ]);
  await typed.load(["example.io/v1"]);
  assert.equal(client.reads.length, 2);
});
