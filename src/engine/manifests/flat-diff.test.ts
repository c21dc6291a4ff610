/** The manifest comparison of k8s-manifest-sigstore (mapnode): flattened keys, moves, types, and the printed list. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { diffDocuments, diffString } from "./flat-diff.js";
import { withoutIgnored } from "./ignore-fields.js";

describe("manifest diff", () => {
  test("changed, added and removed leaves, by dotted key in key order; nulls and empty maps are no keys", () => {
    const before = { spec: { replicas: 1, a: null, b: {}, list: ["x", "y"] } };
    const after = { spec: { replicas: 2, list: ["x"], extra: "e" } };
    assert.deepEqual(diffDocuments(before, after), [
      { key: "spec.extra", before: undefined, after: "e" },
      { key: "spec.list.1", before: "y", after: undefined },
      { key: "spec.replicas", before: 1, after: 2 },
    ]);
    assert.deepEqual(diffDocuments({ a: { b: null } }, { a: {} }), []);
  });

  test("a list element that only moved is not a difference", () => {
    const c = (name: string) => ({ name, image: `${name}:1` });
    assert.deepEqual(
      diffDocuments({ spec: { containers: [c("a"), c("b")] } }, { spec: { containers: [c("a"), c("b")] } }),
      [],
    );
    const moved = diffDocuments(
      { spec: { containers: [c("a")] } },
      { spec: { containers: [{ name: "z", image: "z:1" }, c("a")] } },
    );
    // index 0 changed (a → z), index 1 added: the added a:1 matches nothing removed at another index with the same value.
    assert.deepEqual(
      moved.map((d) => d.key),
      ["spec.containers.0.image", "spec.containers.0.name", "spec.containers.1.image", "spec.containers.1.name"],
    );
    const swapped = diffDocuments({ x: [{ k: "1" }, { j: "2" }] }, { x: [{ j: "2" }, { k: "1" }] });
    assert.deepEqual(swapped, []);
  });

  test("a value whose type changed is reported with Go's type notes", () => {
    assert.deepEqual(diffDocuments({ port: 80, on: true }, { port: "80", on: "yes" }), [
      { key: "on", before: "(type: bool) %!s(bool=true)", after: "(type: string) yes" },
      { key: "port", before: "(type: float64) %!s(float64=80)", after: "(type: string) 80" },
    ]);
  });

  test("printed as Kyverno's message prints it: Go JSON, values after then before, null for a missing side, HTML-safe", () => {
    assert.equal(diffString([]), "");
    assert.equal(
      diffString(diffDocuments({ data: { a: "<x>", n: 1 } }, { data: { a: "&", m: 2.5 } })),
      '{"items":[{"key":"data.a","values":{"after":"\\u0026","before":"\\u003cx\\u003e"}},{"key":"data.m","values":{"after":2.5,"before":null}},{"key":"data.n","values":{"after":null,"before":1}}]}',
    );
  });

  test("ignore fields: a prefix of the key, `*` for any run, found anywhere in the key", () => {
    const items = diffDocuments(
      {},
      {
        spec: { replicas: 2, template: { spec: { containers: [{ imagePullPolicy: "Always" }] } } },
        metadata: { labels: { "app.kubernetes.io/instance": "x" } },
      },
    );
    assert.deepEqual(
      withoutIgnored(items, ["spec.replicas"]).map((d) => d.key),
      ["metadata.labels.app.kubernetes.io/instance", "spec.template.spec.containers.0.imagePullPolicy"],
    );
    assert.deepEqual(
      withoutIgnored(items, ["spec.containers.*.imagePullPolicy", "metadata.labels"]).map((d) => d.key),
      ["spec.replicas"],
    );
    assert.deepEqual(
      withoutIgnored(items, ["spec"]).map((d) => d.key),
      ["metadata.labels.app.kubernetes.io/instance"],
    );
  });
});
