/** A CustomResourceDefinition's kinds typed beside the built-in ones (--crd-paths), as Kyverno's CLI types them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyConfigurationRefusal } from "./apply-configuration-refusal.js";
import { typedKindsWithCrds } from "./crd-typed-kinds.js";

const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.example.com" },
  spec: {
    group: "example.com",
    names: { kind: "Widget", plural: "widgets" },
    versions: [
      {
        name: "v1",
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  size: { type: "integer" },
                  ports: {
                    type: "array",
                    "x-kubernetes-list-type": "atomic",
                    items: { type: "integer" },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};
const widget = { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" }, spec: { size: 1 } };

test("a custom resource is typed with its CRD's schema; metadata as the built-in ObjectMeta", () => {
  const kinds = typedKindsWithCrds([crd]);
  const refusal = (patch: Record<string, unknown>) => applyConfigurationRefusal(widget, patch as never, kinds);
  assert.equal(refusal({ spec: { size: 2 }, metadata: { labels: { a: "b" } } }), undefined);
  assert.match(refusal({ spec: { color: "red" } }) ?? "", /\.spec\.color: field not declared in schema/);
  assert.match(refusal({ metadata: { foo: "x" } }) ?? "", /\.metadata\.foo: field not declared in schema/);
  assert.match(refusal({ spec: { size: "big" } }) ?? "", /\.spec\.size/);
  assert.match(
    refusal({ spec: { ports: [80] } }) ?? "",
    /may not mutate atomic arrays, maps or structs: \.spec\.ports/,
  );
});

test("the built-in kinds keep their types, and a kind no CRD declares stays unconverted", () => {
  const kinds = typedKindsWithCrds([crd]);
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [] } };
  assert.match(
    applyConfigurationRefusal(pod, { spec: { tolerations: [{ key: "x" }] } }, kinds) ?? "",
    /may not mutate atomic arrays, maps or structs: \.spec\.tolerations/,
  );
  const gadget = { apiVersion: "example.com/v1", kind: "Gadget", metadata: { name: "g" } };
  assert.equal(applyConfigurationRefusal(gadget, { spec: { anything: 1 } }, kinds), undefined);
});
