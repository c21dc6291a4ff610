/** Kinds resolved through discovery for webhook registration (Kyverno's FindResources): exact group, plural, scope, subresources. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Discovery, ServedResource } from "./discovery.js";
import { DiscoveredKinds, kindResources, type KindSelector } from "./discovered-kinds.js";
import type { KubeClient } from "./kube-client.js";

const r = (group: string, version: string, resource: string, kind: string, namespaced = true): ServedResource => ({
  group,
  version,
  resource,
  kind,
  namespaced,
  verbs: ["get", "list"],
  preferred: version === "v1",
});
const discovery: Discovery = {
  warnings: [],
  resources: [
    r("example.com", "v1", "widgets", "Widget"),
    r("example.com", "v1", "widgets/status", "Widget"),
    r("example.com", "v1beta1", "widgets", "Widget"),
    r("other.io", "v1", "widgets", "Widget", false),
    r("example.com", "v1", "gadgets", "Gadget", false),
  ],
};
const sel = (kind: string, group = "*", version = "*", subresource = ""): KindSelector => ({
  group,
  version,
  kind,
  subresource,
});
const flat = (found: ReturnType<typeof kindResources>): string[] =>
  found.map((x) => `${x.group}/${x.resource}@${x.namespaced ? "Namespaced" : "Cluster"}`);

describe("kindResources", () => {
  test("a kind in any group: every group that serves it, once per group whatever its versions, with its scope", () => {
    assert.deepEqual(flat(kindResources(discovery, sel("Widget"))), [
      "example.com/widgets@Namespaced",
      "other.io/widgets@Cluster",
    ]);
  });

  test("a group and version narrow it; a kind no one serves is none", () => {
    assert.deepEqual(flat(kindResources(discovery, sel("Widget", "other.io"))), ["other.io/widgets@Cluster"]);
    assert.deepEqual(flat(kindResources(discovery, sel("Widget", "example.com", "v1beta1"))), [
      "example.com/widgets@Namespaced",
    ]);
    assert.deepEqual(flat(kindResources(discovery, sel("Widget", "example.com", "v2"))), []);
    assert.deepEqual(flat(kindResources(discovery, sel("Sprocket"))), []);
  });

  test("subresources: a named one where served, * the plural and all of its subresources; wildcard kinds", () => {
    assert.deepEqual(flat(kindResources(discovery, sel("Widget", "example.com", "*", "status"))), [
      "example.com/widgets/status@Namespaced",
    ]);
    assert.deepEqual(flat(kindResources(discovery, sel("Widget", "example.com", "*", "*"))), [
      "example.com/widgets@Namespaced",
      "example.com/widgets/status@Namespaced",
    ]);
    assert.deepEqual(flat(kindResources(discovery, sel("Widget", "other.io", "*", "status"))), []);
    assert.deepEqual(flat(kindResources(discovery, sel("G*"))), ["example.com/gadgets@Cluster"]);
  });
});

describe("DiscoveredKinds", () => {
  test("nothing resolved before the first read; refresh says when what is served changed", async () => {
    let groups: string[] = [];
    const client = {
      getJson: async (path: string) => {
        if (path === "/api/v1")
          return { resources: [{ name: "pods", kind: "Pod", namespaced: true, verbs: ["list"] }] };
        if (path === "/apis")
          return {
            groups: groups.map((g) => ({
              name: g,
              versions: [{ version: "v1" }],
              preferredVersion: { version: "v1" },
            })),
          };
        if (path === "/apis/example.com/v1")
          return { resources: [{ name: "widgets", kind: "Widget", namespaced: true, verbs: ["list"] }] };
        throw new Error(`unexpected ${path}`);
      },
    } as unknown as KubeClient;
    const kinds = new DiscoveredKinds(client);
    assert.equal(kinds.resolve(sel("Widget")), undefined);
    assert.equal((await kinds.refresh()).changed, true);
    assert.deepEqual(kinds.resolve(sel("Widget")), []);
    assert.equal((await kinds.refresh()).changed, false, "the same discovery again");
    groups = ["example.com"];
    assert.equal((await kinds.refresh()).changed, true, "a CRD appeared");
    assert.deepEqual(flat(kinds.resolve(sel("Widget")) ?? []), ["example.com/widgets@Namespaced"]);
  });
});
