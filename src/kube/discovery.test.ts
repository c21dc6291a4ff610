import { test } from "node:test";
import assert from "node:assert/strict";
import { glob, selectServed, type Discovery, type ServedResource } from "./discovery.js";

const LIST = ["get", "list", "watch"];
const r = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  preferred = true,
  namespaced = true,
  verbs = LIST,
): ServedResource => ({ group, version, resource, kind, namespaced, verbs, preferred });

const discovery: Discovery = {
  warnings: [],
  resources: [
    r("", "v1", "pods", "Pod"),
    r("", "v1", "pods/status", "Pod"),
    r("", "v1", "namespaces", "Namespace", true, false),
    r("", "v1", "bindings", "Binding", true, true, ["create"]),
    r("apps", "v1", "deployments", "Deployment"),
    r("apps", "v1", "deployments/scale", "Scale"),
    r("autoscaling", "v2", "horizontalpodautoscalers", "HorizontalPodAutoscaler"),
    r("autoscaling", "v1", "horizontalpodautoscalers", "HorizontalPodAutoscaler", false),
    r("example.com", "v1", "widgets", "Widget"),
  ],
};
const names = (found: readonly ServedResource[]): string[] => found.map((x) => `${x.group}/${x.version}/${x.resource}`);
const kind = (group: string, version: string, k: string) => ({
  by: "kind" as const,
  group,
  version,
  kind: k,
  subresource: "",
});

test("a kind selector lists the top-level resource in the group's preferred version, once", () => {
  assert.deepEqual(names(selectServed(discovery, kind("*", "*", "Pod"))), ["/v1/pods"]);
  assert.deepEqual(names(selectServed(discovery, kind("*", "*", "HorizontalPodAutoscaler"))), [
    "autoscaling/v2/horizontalpodautoscalers",
  ]);
  assert.deepEqual(names(selectServed(discovery, kind("autoscaling", "v1", "HorizontalPodAutoscaler"))), [
    "autoscaling/v1/horizontalpodautoscalers",
  ]);
  assert.deepEqual(names(selectServed(discovery, kind("example.com", "*", "Widget"))), ["example.com/v1/widgets"]);
  assert.deepEqual(names(selectServed(discovery, kind("*", "*", "Nothing"))), []);
});

test("a wildcard kind lists every listable top-level resource: no subresources, nothing without the list verb", () => {
  assert.deepEqual(names(selectServed(discovery, kind("*", "*", "*"))), [
    "/v1/pods",
    "/v1/namespaces",
    "apps/v1/deployments",
    "autoscaling/v2/horizontalpodautoscalers",
    "example.com/v1/widgets",
  ]);
  assert.deepEqual(names(selectServed(discovery, kind("*", "*", "D*"))), ["apps/v1/deployments"]);
});

test("a resource selector (a ValidatingPolicy's resourceRules) matches the plural name", () => {
  assert.deepEqual(
    names(selectServed(discovery, { by: "resource", group: "apps", version: "v1", resource: "deployments" })),
    ["apps/v1/deployments"],
  );
  assert.deepEqual(names(selectServed(discovery, { by: "resource", group: "", version: "*", resource: "*" })), [
    "/v1/pods",
    "/v1/namespaces",
  ]);
});

test("glob: * and ? only; other characters are themselves", () => {
  assert.ok(glob("a.*", "a.b"));
  assert.ok(!glob("a.*", "axb"));
  assert.ok(glob("Pod?", "Pods"));
  assert.ok(!glob("Pod", "Pods"));
});
