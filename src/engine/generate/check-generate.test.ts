import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { checkGenerate } from "./check-generate.js";

const P = "spec.rules[0].generate";
const target = { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "n" };

describe("checkGenerate", () => {
  const valid: { name: string; generate: JsonObject }[] = [
    { name: "data", generate: { ...target, data: { data: { a: "b" } } } },
    { name: "clone", generate: { ...target, clone: { namespace: "default", name: "src" } } },
    {
      name: "cloneList without name and kind",
      generate: {
        namespace: "n",
        cloneList: { namespace: "default", kinds: ["v1/Secret"], selector: { matchLabels: { a: "b" } } },
      },
    },
    {
      name: "foreach without a top-level target",
      generate: { foreach: [{ list: "request.object.spec.items", ...target, data: {} }] },
    },
    { name: "data given whole by a variable", generate: { ...target, data: "{{ request.object.spec }}" } },
    {
      name: "a cluster-scoped target without namespace",
      generate: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", name: "r", data: {} },
    },
  ];
  for (const c of valid) test(`accepts ${c.name}`, () => assert.deepEqual(checkGenerate(c.generate, P), []));

  const invalid: { name: string; generate: JsonObject; want: string[] }[] = [
    {
      name: "data and clone together",
      generate: { ...target, data: {}, clone: { namespace: "d", name: "s" } },
      want: [`${P}: only one of data, clone, cloneList or foreach can be specified, found data and clone`],
    },
    {
      name: "clone and foreach together",
      generate: { ...target, clone: { namespace: "d", name: "s" }, foreach: [{ list: "x", ...target, data: {} }] },
      want: [`${P}: only one of data, clone, cloneList or foreach can be specified, found clone and foreach`],
    },
    // Kyverno accepts neither data nor clone: the rule generates the object with metadata only.
    { name: "no source at all is valid", generate: { ...target }, want: [] },
    { name: "an empty clone counts as none, which is valid", generate: { ...target, clone: {} }, want: [] },
    {
      name: "name, kind and apiVersion missing",
      generate: { data: {} },
      want: [
        `${P}.name: name cannot be empty`,
        `${P}.kind: kind cannot be empty`,
        `${P}.apiVersion: apiVersion cannot be empty`,
      ],
    },
    {
      name: "cloneList with no kinds",
      generate: { namespace: "n", cloneList: { namespace: "d", kinds: [] } },
      want: [`${P}.cloneList.kinds: kinds cannot be empty: list the kinds to clone, e.g. v1/Secret`],
    },
    {
      name: "cloneList with name and kind",
      generate: { ...target, cloneList: { namespace: "d", kinds: ["v1/Secret"] } },
      want: [
        `${P}.name: with cloneList, generate.name should not be specified (each copy keeps its source's name)`,
        `${P}.kind: with cloneList, generate.kind should not be specified (use cloneList.kinds)`,
      ],
    },
    {
      name: "a wildcard in the cloneList selector",
      generate: {
        namespace: "n",
        cloneList: { namespace: "d", kinds: ["v1/Secret"], selector: { matchLabels: { app: "web-*" } } },
      },
      want: [`${P}.cloneList.selector: wildcard characters \`*/?\` not supported`],
    },
    {
      name: "data that is not an object",
      generate: { ...target, data: [1, 2] },
      want: [`${P}.data: data must be an object: the body of the resource to generate`],
    },
    {
      name: "an anchor inside data",
      generate: { ...target, data: { metadata: { labels: { "+(team)": "a" } } } },
      want: [
        `${P}.data.metadata.labels.+(team): anchors not supported on generate resources: remove the anchor from "+(team)"`,
      ],
    },
    {
      name: "a wrongly typed field",
      generate: { ...target, name: 5, data: {} },
      want: [`${P}.name: must be a string, got number 5`, `${P}.name: name cannot be empty`],
    },
    {
      name: "a foreach entry without list and target",
      generate: { foreach: [{ data: {} }] },
      want: [
        `${P}.foreach[0].list: list is required: a JMESPath expression giving the elements`,
        `${P}.foreach[0].name: name cannot be empty`,
        `${P}.foreach[0].kind: kind cannot be empty`,
        `${P}.foreach[0].apiVersion: apiVersion cannot be empty`,
      ],
    },
    {
      name: "foreach that is not a list",
      generate: { foreach: { list: "x" } },
      want: [`${P}.foreach: foreach must be a list`],
    },
    {
      name: "a foreach entry with two sources",
      generate: { foreach: [{ list: "x", ...target, data: {}, clone: { name: "s" } }] },
      want: [`${P}.foreach[0]: only one of data, clone or cloneList can be specified, found data and clone`],
    },
  ];
  for (const c of invalid) test(`rejects ${c.name}`, () => assert.deepEqual(checkGenerate(c.generate, P), c.want));
});
