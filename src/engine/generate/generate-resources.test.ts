import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { generateResources } from "./generate-resources.js";
import { input, memoryExisting, secret } from "../../../test/support/generate-inputs.js";

function deepFreeze<T extends JsonValue>(v: T): T {
  if (typeof v === "object" && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

const snapshot = (v: unknown): string => JSON.stringify(v);

describe("generateResources leaves its inputs alone", () => {
  const cases: { name: string; generate: JsonObject; sources: Resource[] }[] = [
    {
      name: "data",
      generate: {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        namespace: "n",
        data: { metadata: { labels: { a: "b" } }, data: { k: "v" } },
      },
      sources: [],
    },
    {
      name: "clone",
      generate: {
        apiVersion: "v1",
        kind: "Secret",
        name: "s",
        namespace: "n",
        clone: { namespace: "default", name: "src" },
      },
      sources: [secret("default", "src", {}, { a: "b" })],
    },
    {
      name: "cloneList",
      generate: { namespace: "n", cloneList: { namespace: "default", kinds: ["v1/Secret"] } },
      sources: [secret("default", "src", {}, { a: "b" })],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const generate = deepFreeze(c.generate);
      const sources = c.sources.map((s) => deepFreeze(s));
      const trigger = deepFreeze<Resource>({ apiVersion: "v1", kind: "Namespace", metadata: { name: "n", uid: "u" } });
      const before = snapshot([generate, sources, trigger]);
      const r = generateResources(input(generate, { trigger, existing: memoryExisting(sources) }));
      assert.ok(r.ok, r.ok ? "" : r.error.message);
      assert.equal(r.value.length, 1);
      const g = r.value[0];
      assert.ok(g);
      // The outputs are fresh objects: changing them touches neither the inputs nor each other.
      const meta = g.resource["metadata"] as JsonObject;
      (meta["labels"] as JsonObject)["a"] = "changed";
      assert.equal(((g.toApply["metadata"] as JsonObject)["labels"] as JsonObject)["a"], "b");
      assert.equal(snapshot([generate, sources, trigger]), before);
    });
  }
});
