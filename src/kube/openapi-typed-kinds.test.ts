/** The cluster's OpenAPI v3 loaded per group-version, with a fake client counting its reads. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { typedKindsOf, typedSchemaFromOpenApi } from "../engine/index.js";
import { fakeOpenApiServer, widgetOpenApi } from "../../test/support/openapi-widget.js";
import { clusterTypedKinds, createClusterTypedKinds, typesInRounds } from "./openapi-typed-kinds.js";

const kindsOf = (data: ReturnType<typeof typedSchemaFromOpenApi>) => typedKindsOf(() => data);
const convert = { schemaOf: typedSchemaFromOpenApi, kindsOf };

const widgetDoc = widgetOpenApi();
const fakeClient = fakeOpenApiServer;

const index = {
  paths: {
    "apis/example.io/v1": { serverRelativeURL: "/openapi/v3/apis/example.io/v1?hash=A" },
    "apis/broken.io/v1": { serverRelativeURL: "/openapi/v3/apis/broken.io/v1?hash=B" },
  },
};

test("a group-version is fetched once, on load, and types its kinds from the cluster's schema", async () => {
  const client = fakeClient({ "/openapi/v3": index, "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc });
  const typed = createClusterTypedKinds({ client, ...convert });
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
});

test("a document whose hash changed in the index is fetched again on its next load, after a refresh", async () => {
  const answers: Record<string, unknown> = {
    "/openapi/v3": index,
    "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc,
  };
  const client = fakeClient(answers);
  const typed = createClusterTypedKinds({ client, ...convert });
  assert.equal(await typed.refresh(), undefined);
  assert.deepEqual(client.reads, [], "nothing held: the index is not polled");
  assert.equal(typed.ready("example.io/v1", "Widget"), false);
  await typed.load(["example.io/v1"]);
  assert.equal(typed.ready("example.io/v1", "Widget"), true);
  const before = typed.version;
  const gadgetDoc = structuredClone(widgetDoc) as { components: { schemas: Record<string, unknown> } };
  gadgetDoc.components.schemas["io.example.v1.Gadget"] = {
    type: "object",
    "x-kubernetes-group-version-kind": [{ group: "example.io", version: "v1", kind: "Gadget" }],
    properties: { spec: { type: "object" } },
  };
  answers["/openapi/v3"] = {
    paths: { "apis/example.io/v1": { serverRelativeURL: "/openapi/v3/apis/example.io/v1?hash=C" } },
  };
  answers["/openapi/v3/apis/example.io/v1?hash=C"] = gadgetDoc;
  assert.equal(await typed.refresh(), undefined);
  assert.equal(typed.ready("example.io/v1", "Widget"), false);
  assert.equal(typed.kinds.typeOf("example.io/v1", "Gadget"), undefined, "not fetched before it is needed");
  await typed.load(["example.io/v1"]);
  assert.notEqual(typed.kinds.typeOf("example.io/v1", "Gadget"), undefined);
  assert.ok(typed.version > before);
  assert.deepEqual(client.reads, [
    "/openapi/v3",
    "/openapi/v3/apis/example.io/v1?hash=A",
    "/openapi/v3",
    "/openapi/v3/apis/example.io/v1?hash=C",
  ]);
});

test("concurrent loads of one group-version share one fetch", async () => {
  const client = fakeClient({ "/openapi/v3": index, "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc });
  const typed = createClusterTypedKinds({ client, ...convert });
  await Promise.all([typed.load(["example.io/v1"]), typed.load(["example.io/v1"]), typed.load(["example.io/v1"])]);
  assert.deepEqual(client.reads, ["/openapi/v3", "/openapi/v3/apis/example.io/v1?hash=A"]);
});

test("the state, sent as plain data, types the same kinds and words the same errors elsewhere", async () => {
  const client = fakeClient({ "/openapi/v3": index, "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc });
  const typed = createClusterTypedKinds({ client, ...convert });
  await typed.load(["example.io/v1", "none.io/v1"]);
  const copy = clusterTypedKinds(structuredClone(typed.state()), kindsOf);
  assert.deepEqual(copy.typeOf("example.io/v1", "Widget"), typed.kinds.typeOf("example.io/v1", "Widget"));
  for (const [apiVersion, kind] of [
    ["none.io/v1", "Thing"],
    ["example.io/v1", "Gadget"],
    ["apps/v1", "Deployment"],
  ] as const)
    assert.equal(copy.missing?.(apiVersion, kind), typed.kinds.missing?.(apiVersion, kind));
  assert.equal(
    copy.missing?.("apps/v1", "Deployment"),
    "type converter must not be nil: the cluster's OpenAPI v3 for apps/v1 was not read in time",
  );
});

test("a kind the cluster has no schema for is an error naming why, never a pass", async () => {
  const client = fakeClient({
    "/openapi/v3": index,
    "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc,
    "/openapi/v3/apis/broken.io/v1?hash=B": new Error("connection refused"),
  });
  const typed = createClusterTypedKinds({ client, ...convert });
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
  const typed = createClusterTypedKinds({ client, ...convert });
  assert.deepEqual(await typed.load(["example.io/v1"]), [
    "cannot read the cluster's OpenAPI v3 index (/openapi/v3): Forbidden",
  ]);
  await typed.load(["example.io/v1"]);
  assert.equal(client.reads.length, 2);
});

test("a kind the types lack is looked for again once the index is a second old: its CRD may have been created since", async () => {
  let now = 0;
  const answers: Record<string, unknown> = {
    "/openapi/v3": index,
    "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc,
  };
  const client = fakeClient(answers);
  const typed = createClusterTypedKinds({ client, ...convert, now: () => now });
  await typed.load(["example.io/v1"]);
  now = 500;
  assert.equal(typed.ready("example.io/v1", "Gadget"), true, "within a second the index is believed");
  now = 2_000;
  assert.equal(typed.ready("example.io/v1", "Widget"), true);
  assert.equal(typed.ready("example.io/v1", "Gadget"), false);
  const withGadget = structuredClone(widgetDoc) as { components: { schemas: Record<string, unknown> } };
  withGadget.components.schemas["io.example.v1.Gadget"] = {
    type: "object",
    "x-kubernetes-group-version-kind": [{ group: "example.io", version: "v1", kind: "Gadget" }],
    properties: { spec: { type: "object" } },
  };
  answers["/openapi/v3"] = {
    paths: { "apis/example.io/v1": { serverRelativeURL: "/openapi/v3/apis/example.io/v1?hash=C" } },
  };
  answers["/openapi/v3/apis/example.io/v1?hash=C"] = withGadget;
  await typed.load(["example.io/v1"]);
  assert.notEqual(typed.kinds.typeOf("example.io/v1", "Gadget"), undefined);
  // A kind no document declares: the index is read again at most once a second, however often it is asked.
  const reads = client.reads.length;
  assert.equal(typed.ready("example.io/v1", "Nothing"), true);
  await typed.load(["example.io/v1"]);
  assert.equal(client.reads.length, reads);
});

test("in rounds: a kind not ready is asked for once per run; a read that failed ends as its error, not another round", async () => {
  const client = fakeClient({
    "/openapi/v3": index,
    "/openapi/v3/apis/example.io/v1?hash=A": widgetDoc,
    "/openapi/v3/apis/broken.io/v1?hash=B": new Error("connection refused"),
  });
  const typed = createClusterTypedKinds({ client, ...convert });
  const rounds = typesInRounds(typed);
  assert.equal(rounds.kinds.typeOf("example.io/v1", "Widget"), undefined);
  assert.equal(rounds.kinds.typeOf("broken.io/v1", "Thing"), undefined);
  assert.equal(rounds.pending, 2);
  await rounds.settle();
  assert.equal(rounds.pending, 0);
  assert.notEqual(rounds.kinds.typeOf("example.io/v1", "Widget"), undefined);
  assert.equal(rounds.kinds.typeOf("broken.io/v1", "Thing"), undefined);
  assert.equal(rounds.pending, 0, "asked once in this run");
  assert.match(rounds.kinds.missing?.("broken.io/v1", "Thing") ?? "", /connection refused/);
});
