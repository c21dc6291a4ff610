/** OpenAPI v3 → structured-merge-diff types, on a hand-written group-version document. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { applyConfigurationRefusal, typedKindsOf, typedSchemaFromOpenApi } from "./index.js";

const doc = {
  components: {
    schemas: {
      "io.example.v1.Widget": {
        type: "object",
        "x-kubernetes-group-version-kind": [{ group: "example.io", version: "v1", kind: "Widget" }],
        properties: {
          apiVersion: { type: "string" },
          kind: { type: "string" },
          metadata: { type: "object", additionalProperties: true },
          spec: {
            type: "object",
            properties: {
              args: { type: "array", items: { type: "string" } },
              ports: {
                type: "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port"],
                items: { type: "object", properties: { port: { type: "integer" }, name: { type: "string" } } },
              },
              selector: { type: "object", "x-kubernetes-map-type": "atomic", additionalProperties: { type: "string" } },
              labels: { type: "object", additionalProperties: { type: "string" } },
              raw: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            },
          },
        },
      },
    },
  },
};

const data = typedSchemaFromOpenApi([doc]);
const kinds = typedKindsOf(() => data);
const widget = { apiVersion: "example.io/v1", kind: "Widget", metadata: { name: "w" }, spec: {} };
const refusal = (patch: object) => applyConfigurationRefusal(widget, patch as never, kinds);

test("the kinds a document declares, by apiVersion and kind", () => {
  assert.equal(typeof kinds.typeOf("example.io/v1", "Widget"), "number");
  assert.equal(kinds.typeOf("example.io/v1", "Gadget"), undefined);
  assert.deepEqual(Object.keys(data.kinds), ["example.io/v1/Widget"]);
});

test("a list without x-kubernetes-list-type is atomic; a map list by its keys merges", () => {
  assert.equal(
    refusal({ spec: { args: ["a"] } }),
    "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.args",
  );
  assert.equal(refusal({ spec: { ports: [{ port: 80, name: "http" }] } }), undefined);
});

test("x-kubernetes-map-type atomic; additionalProperties types the other keys", () => {
  assert.equal(
    refusal({ spec: { selector: { a: "b" } } }),
    "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.selector",
  );
  assert.equal(refusal({ spec: { labels: { a: "b" } } }), undefined);
  assert.match(refusal({ spec: { labels: { a: 1 } } }) ?? "", /^failed to convert patch object to typed object: /);
});

test("an undeclared field is an error; under preserve-unknown-fields anything goes", () => {
  assert.equal(
    refusal({ spec: { bogus: 1 } }),
    "failed to convert patch object to typed object: .spec.bogus: field not declared in schema",
  );
  assert.equal(refusal({ spec: { raw: { any: { thing: [1] } } } }), undefined);
});
