import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../api/json.js";
import { preprocessOverlay } from "./preprocess.js";
import { pod } from "../../../../test/support/builders.js";

const podWith = (containers: JsonValue[], extra: Record<string, JsonValue> = {}): JsonValue =>
  pod({ name: "p", namespace: null, labels: { app: "web" }, containers, metadata: extra });

function patchOf(overlay: JsonValue, resource: JsonValue): JsonValue {
  const out = preprocessOverlay(overlay, resource);
  assert.ok(out.ok, out.ok ? "" : out.mismatch.message);
  return out.patch;
}

describe("conditional anchors (key)", () => {
  test("in a list, one named copy per matching element; the anchored element itself is dropped", () => {
    const overlay = { spec: { containers: [{ "(image)": "*:latest", imagePullPolicy: "Always" }] } };
    const resource = podWith([
      { name: "a", image: "nginx:latest" },
      { name: "b", image: "nginx:1.25" },
      { name: "c", image: "redis:latest" },
    ]);
    assert.deepEqual(patchOf(overlay, resource), {
      spec: {
        containers: [
          { imagePullPolicy: "Always", name: "a" },
          { imagePullPolicy: "Always", name: "c" },
        ],
      },
    });
  });

  test('(name): "*" merges into every element', () => {
    const overlay = { spec: { containers: [{ "(name)": "*", env: [{ name: "X", value: "1" }] }] } };
    const out = patchOf(overlay, podWith([{ name: "a" }, { name: "b" }]));
    assert.deepEqual(out, {
      spec: {
        containers: [
          { env: [{ name: "X", value: "1" }], name: "a" },
          { env: [{ name: "X", value: "1" }], name: "b" },
        ],
      },
    });
  });

  test("no element matches: the list (and the maps holding only it) leave nothing to merge", () => {
    const overlay = { spec: { initContainers: [{ "(name)": "*", env: [{ name: "X", value: "1" }] }] } };
    assert.deepEqual(patchOf(overlay, podWith([{ name: "a" }])), {});
  });

  test("outside a list a mismatch means the whole patch does not apply", () => {
    const overlay = { metadata: { labels: { "(app)": "db" } }, spec: { priority: 1 } };
    const out = preprocessOverlay(overlay, podWith([]));
    assert.equal(out.ok, false);
    if (!out.ok) assert.equal(out.mismatch.kind, "condition");
  });

  test("an absent anchored key is a mismatch, also when its parent is absent", () => {
    assert.equal(preprocessOverlay({ metadata: { annotations: { "(inject)": "true" }, x: 1 } }, podWith([])).ok, false);
  });

  test("a matching condition keeps its siblings and drops the anchor", () => {
    const overlay = { metadata: { labels: { "(app)": "web", tier: "front" } } };
    assert.deepEqual(patchOf(overlay, podWith([])), { metadata: { labels: { tier: "front" } } });
  });

  test("elements without a name match nothing to merge into", () => {
    const overlay = { spec: { containers: [{ "(image)": "*", imagePullPolicy: "Always" }] } };
    assert.deepEqual(patchOf(overlay, podWith([{ image: "x" }])), {});
  });

  test("plain list elements are kept as written", () => {
    const overlay = { spec: { containers: [{ name: "sidecar", image: "s:1" }] } };
    assert.deepEqual(patchOf(overlay, podWith([{ name: "a" }])), overlay);
  });

  test("empty maps written in the patch are kept (emptyDir: {})", () => {
    const overlay = { spec: { volumes: [{ name: "v", emptyDir: {} }] } };
    assert.deepEqual(patchOf(overlay, podWith([])), overlay);
  });
});

describe("global anchors <(key)", () => {
  test("a mismatch anywhere skips the whole patch", () => {
    const overlay = { metadata: { annotations: { x: "y" } }, spec: { "<(hostNetwork)": true } };
    const out = preprocessOverlay(overlay, { spec: { hostNetwork: false } });
    assert.equal(out.ok, false);
    if (!out.ok) assert.equal(out.mismatch.kind, "global");
  });

  test("in a list it only gates: one matching element lets the rest of the patch apply", () => {
    const overlay = { metadata: { annotations: { a: "b" } }, spec: { volumes: [{ "<(emptyDir)": {} }] } };
    const resource = {
      spec: {
        volumes: [
          { name: "h", hostPath: { path: "/" } },
          { name: "e", emptyDir: {} },
        ],
      },
    };
    assert.deepEqual(patchOf(overlay, resource), { metadata: { annotations: { a: "b" } } });
  });

  test("in a list with no matching element it skips the patch", () => {
    const overlay = { metadata: { annotations: { a: "b" } }, spec: { volumes: [{ "<(emptyDir)": {} }] } };
    assert.equal(preprocessOverlay(overlay, { spec: { volumes: [{ name: "h", hostPath: { path: "/" } }] } }).ok, false);
  });

  test("nested global anchors gate per element too", () => {
    const overlay = { metadata: { annotations: { a: "b" } }, spec: { volumes: [{ hostPath: { "<(path)": "*" } }] } };
    assert.ok(preprocessOverlay(overlay, { spec: { volumes: [{ name: "h", hostPath: { path: "/foo" } }] } }).ok);
  });
});

describe("add-if-not-present +(key)", () => {
  test("added when absent", () => {
    const overlay = { metadata: { labels: { "+(team)": "bravo" } } };
    assert.deepEqual(patchOf(overlay, podWith([])), { metadata: { labels: { team: "bravo" } } });
  });

  test("dropped when present, whatever its value", () => {
    const overlay = { metadata: { labels: { "+(app)": "other" } } };
    assert.deepEqual(patchOf(overlay, podWith([])), {});
  });

  test("added when the parent map is absent", () => {
    const overlay = { metadata: { annotations: { "+(a)": "1" } } };
    assert.deepEqual(patchOf(overlay, podWith([])), { metadata: { annotations: { a: "1" } } });
  });

  test("inside a conditional list element, per element", () => {
    const overlay = { spec: { containers: [{ "(name)": "*", securityContext: { "+(runAsNonRoot)": true } }] } };
    const resource = podWith([{ name: "a", securityContext: { runAsNonRoot: false } }, { name: "b" }]);
    assert.deepEqual(patchOf(overlay, resource), {
      spec: { containers: [{ securityContext: { runAsNonRoot: true }, name: "b" }] },
    });
  });
});

describe("equality =(key), existence ^(key) and negation X(key) gate a patch with their validate meaning", () => {
  const resource = {
    metadata: { labels: { env: "prod" } },
    spec: { containers: [{ name: "a", image: "nginx:1" }], hostNetwork: true },
  };
  test("=(key): absent or matching applies; present and different does not", () => {
    assert.deepEqual(patchOf({ metadata: { labels: { "=(env)": "prod", a: "1" } } }, resource), {
      metadata: { labels: { a: "1" } },
    });
    assert.deepEqual(patchOf({ metadata: { labels: { "=(tier)": "web", a: "1" } } }, resource), {
      metadata: { labels: { a: "1" } },
    });
    assert.equal(preprocessOverlay({ metadata: { labels: { "=(env)": "dev", a: "1" } } }, resource).ok, false);
  });
  test("^(key): at least one list element must match", () => {
    assert.ok(preprocessOverlay({ spec: { "^(containers)": [{ image: "nginx:*" }], priority: 1 } }, resource).ok);
    assert.equal(
      preprocessOverlay({ spec: { "^(containers)": [{ image: "redis:*" }], priority: 1 } }, resource).ok,
      false,
    );
  });
  test("X(key): the key must be absent", () => {
    assert.equal(preprocessOverlay({ spec: { "X(hostNetwork)": "null", priority: 1 } }, resource).ok, false);
    assert.deepEqual(patchOf({ spec: { "X(hostPID)": "null", priority: 1 } }, resource), { spec: { priority: 1 } });
  });
});
