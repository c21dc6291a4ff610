/** The offline stand-in for cluster objects: lists behave as Kubernetes lists. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existingResources } from "./existing-resources.js";

const cm = (name: string, namespace: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace },
});
const store = existingResources([
  cm("a", "one"),
  cm("b", "two"),
  { apiVersion: "v1", kind: "Secret", metadata: { name: "s", namespace: "one" } },
]);

test("a list in a namespace gives that namespace's objects of the kind", () => {
  const r = store.list("v1", "ConfigMap", "one");
  assert.ok(r.ok);
  assert.deepEqual(
    r.value.map((x) => (x["metadata"] as { name: string }).name),
    ["a"],
  );
});

test("a list with no namespace gives the kind in every namespace (mutate.targets without namespace)", () => {
  const r = store.list("v1", "ConfigMap", "");
  assert.ok(r.ok);
  assert.deepEqual(
    r.value.map((x) => (x["metadata"] as { name: string }).name),
    ["a", "b"],
  );
});

test("get still needs the exact namespace", () => {
  const r = store.get("v1", "ConfigMap", "", "a");
  assert.ok(r.ok);
  assert.equal(r.value, undefined);
});
