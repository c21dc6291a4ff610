import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applyPatch, type Operation } from "rfc6902";
import type { JsonObject, JsonValue } from "../../api/json.js";
import { applyJsonPatch } from "./apply.js";
import { createJsonPatch } from "./diff.js";
import { seededRandom } from "../../../../test/support/seeded-random.js";
import { pod } from "../../../../test/support/builders.js";

/** The patch must turn `before` into exactly `after`, with our applier and with plain RFC 6902. */
function roundTrip(before: JsonValue, after: JsonValue): ReturnType<typeof createJsonPatch> {
  const frozenBefore = structuredClone(before);
  const frozenAfter = structuredClone(after);
  const ops = createJsonPatch(before, after);
  assert.deepEqual(before, frozenBefore, "createJsonPatch must not change its input");
  assert.deepEqual(after, frozenAfter, "createJsonPatch must not change its input");
  const ours = applyJsonPatch(before, ops);
  assert.ok(ours.ok, ours.ok ? "" : ours.error.message);
  assert.deepEqual(ours.value, after);
  const plain = structuredClone(before);
  const results = applyPatch(plain, structuredClone(ops) as Operation[]);
  assert.deepEqual(
    results.filter((x) => x !== null),
    [],
    "plain RFC 6902 application must succeed",
  );
  assert.deepEqual(plain, after);
  return ops;
}

const container = (name: string, image = `${name}:1`): JsonObject => ({ name, image, ports: [{ containerPort: 80 }] });
const podWith = (containers: JsonObject[], labels: JsonObject = { app: "web" }): JsonObject =>
  pod({ containers, metadata: { labels } });

describe("createJsonPatch", () => {
  test("prepending one container is a single add at index 0", () => {
    const before = podWith([container("a"), container("b"), container("c")]);
    const after = podWith([container("z"), container("a"), container("b"), container("c")]);
    assert.deepEqual(roundTrip(before, after), [{ op: "add", path: "/spec/containers/0", value: container("z") }]);
  });

  test("appending one container is a single add", () => {
    const before = podWith([container("a"), container("b")]);
    const ops = roundTrip(before, podWith([container("a"), container("b"), container("c")]));
    assert.equal(ops.length, 1);
    assert.equal(ops[0]?.op, "add");
  });

  test("inserting in the middle of a long list is a single add at that index", () => {
    const names = Array.from({ length: 40 }, (_, i) => container(`c${i}`));
    const after = [...names.slice(0, 17), container("new"), ...names.slice(17)];
    assert.deepEqual(roundTrip(podWith(names), podWith(after)), [
      { op: "add", path: "/spec/containers/17", value: container("new") },
    ]);
  });

  test("removing one container is a single remove", () => {
    const ops = roundTrip(
      podWith([container("a"), container("b"), container("c")]),
      podWith([container("a"), container("c")]),
    );
    assert.deepEqual(ops, [{ op: "remove", path: "/spec/containers/1" }]);
  });

  test("a changed image is one replace deep inside", () => {
    const ops = roundTrip(podWith([container("a"), container("b")]), podWith([container("a"), container("b", "b:2")]));
    assert.deepEqual(ops, [{ op: "replace", path: "/spec/containers/1/image", value: "b:2" }]);
  });

  test("keys with / and ~ are escaped", () => {
    const ops = roundTrip(
      podWith([], { app: "web" }),
      podWith([], { app: "web", "app.kubernetes.io/name": "web", "a~b/c": "x" }),
    );
    assert.deepEqual(ops.map((o) => o.path).sort(), [
      "/metadata/labels/app.kubernetes.io~1name",
      "/metadata/labels/a~0b~1c",
    ]);
  });

  test("an annotation like kyverno.io/x is added under its escaped name", () => {
    const before = podWith([]);
    const after = structuredClone(before);
    (after["metadata"] as JsonObject)["annotations"] = { "policies.kyverno.io/patches": "x" };
    assert.deepEqual(roundTrip(before, after), [
      { op: "add", path: "/metadata/annotations", value: { "policies.kyverno.io/patches": "x" } },
    ]);
  });

  test("no change is an empty patch", () =>
    assert.deepEqual(roundTrip(podWith([container("a")]), podWith([container("a")])), []));

  test("a change of type is a replace", () => {
    assert.deepEqual(roundTrip({ a: { x: 1 } }, { a: [1] }), [{ op: "replace", path: "/a", value: [1] }]);
  });

  test("a __proto__ key is diffed as a plain key", () => {
    const before = JSON.parse('{"m":{"__proto__":{"x":1}}}') as JsonValue;
    const after = JSON.parse('{"m":{"__proto__":{"x":2}}}') as JsonValue;
    assert.deepEqual(createJsonPatch(before, after), [{ op: "replace", path: "/m/__proto__/x", value: 2 }]);
    const applied = applyJsonPatch(before, createJsonPatch(before, after));
    assert.equal(JSON.stringify(applied.ok && applied.value), JSON.stringify(after));
  });

  test("large lists stay fast and exact", () => {
    const big = Array.from({ length: 3000 }, (_, i) => ({ name: `VAR_${i}`, value: String(i) }));
    const changed = big.map((e, i) => (i % 300 === 0 ? { ...e, value: "changed" } : e)).filter((_, i) => i % 700 !== 5);
    const before = { spec: { containers: [{ name: "a", env: big }] } };
    const after = {
      spec: {
        containers: [{ name: "a", env: [{ name: "FIRST", value: "0" }, ...changed, { name: "LAST", value: "" }] }],
      },
    };
    const started = performance.now();
    roundTrip(before, after);
    assert.ok(performance.now() - started < 5000, "diffing 3000-element lists must not take seconds");
  });

  test("two large unrelated lists are compared position by position", () => {
    const a = Array.from({ length: 2000 }, (_, i) => i);
    const b = Array.from({ length: 1500 }, (_, i) => -i - 1);
    const ops = roundTrip({ l: a }, { l: b });
    assert.equal(ops.length, 2000);
  });

  test("many fully changed nested lists stay fast (the edit-distance budget runs out)", () => {
    const widePod = (s: string): JsonValue => ({
      spec: {
        containers: Array.from({ length: 90 }, (_, i) => ({
          name: `c${i}`,
          env: Array.from({ length: 90 }, (_, j) => ({ name: `E${j}`, value: `${s}${j}` })),
        })),
      },
    });
    const started = performance.now();
    roundTrip(widePod("a"), widePod("b"));
    assert.ok(performance.now() - started < 5000);
  });

  test("a diff too big for rfc6902's recursion falls back to whole top-level values", () => {
    const inner: JsonObject = {};
    for (let i = 0; i < 300_000; i++) inner[`k${i}`] = i;
    const before = { a: { b: inner }, keep: 1, gone: 2 };
    const after = { a: { b: {} }, keep: 1, added: 3 };
    const ops = createJsonPatch(before, after);
    assert.ok(ops.length <= 3, `expected a handful of operations, got ${ops.length}`);
    assert.deepEqual(applyJsonPatch(before, ops), { ok: true, value: after });
  });
});

type Rand = { int: (n: number) => number; pick: <T>(xs: readonly T[]) => T };

function rand(seed: number): Rand {
  const next = seededRandom(seed);
  const int = (n: number): number => Math.floor(next() * n);
  return { int, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)] as T };
}

const LABEL_KEYS = ["app", "app.kubernetes.io/name", "team", "kyverno.io/x", "a~b", "tier", "0"];
const IMAGES = ["nginx:1.25", "redis:7", "busybox", "ghcr.io/org/app@sha256:abc"];

function randomContainer(r: Rand, i: number): JsonObject {
  const c: JsonObject = { name: `c${i}`, image: r.pick(IMAGES) };
  if (r.int(2)) c["env"] = Array.from({ length: r.int(4) }, (_, j) => ({ name: `E${j}`, value: String(r.int(3)) }));
  if (r.int(2)) c["resources"] = { limits: { cpu: r.pick(["100m", "1", "2"]), memory: r.pick(["64Mi", "1Gi"]) } };
  if (r.int(3) === 0) c["securityContext"] = { runAsNonRoot: r.int(2) === 1, capabilities: { drop: ["ALL"] } };
  return c;
}

function randomPod(r: Rand): JsonObject {
  const labels: JsonObject = {};
  for (const k of LABEL_KEYS) if (r.int(2)) labels[k] = r.pick(["a", "b", "web"]);
  const spec: JsonObject = { containers: Array.from({ length: 1 + r.int(4) }, (_, i) => randomContainer(r, i)) };
  if (r.int(2)) spec["volumes"] = [{ name: "data", emptyDir: {} }];
  if (r.int(2)) spec["nodeSelector"] = { "kubernetes.io/os": "linux" };
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels }, spec };
}

/** A mutation as a webhook would make it: a handful of realistic edits. */
function mutate(r: Rand, original: JsonObject): JsonObject {
  const p = structuredClone(original) as { metadata: JsonObject; spec: JsonObject & { containers: JsonObject[] } };
  for (let n = 1 + r.int(4); n > 0; n--) {
    const labels = p.metadata["labels"] as JsonObject;
    const cs = p.spec.containers;
    switch (r.int(9)) {
      case 0:
        labels[r.pick(LABEL_KEYS)] = r.pick(["x", "y"]);
        break;
      case 1:
        delete labels[r.pick(LABEL_KEYS)];
        break;
      case 2:
        cs.unshift(randomContainer(r, 90 + r.int(9)));
        break;
      case 3:
        cs.push(randomContainer(r, 80 + r.int(9)));
        break;
      case 4:
        if (cs.length > 1) cs.splice(r.int(cs.length), 1);
        break;
      case 5: {
        const c = cs[r.int(cs.length)];
        if (c) c["image"] = r.pick(IMAGES);
        break;
      }
      case 6: {
        const c = cs[r.int(cs.length)];
        if (c) c["securityContext"] = { allowPrivilegeEscalation: false, seccompProfile: { type: "RuntimeDefault" } };
        break;
      }
      case 7:
        p.metadata["annotations"] = {
          "policies.kyverno.io/last-applied-patches": `rule${r.int(3)}.policy.kyverno.io: added /spec/x`,
        };
        break;
      case 8:
        p.spec["initContainers"] = [randomContainer(r, 70)];
        break;
    }
  }
  return p;
}

describe("createJsonPatch round-trips realistic Pods (seeded)", () => {
  test("the generator makes real changes", () => {
    let changed = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const r = rand(seed);
      const before = randomPod(r);
      if (createJsonPatch(before, mutate(r, before)).length > 0) changed++;
    }
    assert.ok(changed >= 50, `only ${changed} of 60 seeds changed the Pod`);
  });

  for (let seed = 1; seed <= 60; seed++) {
    test(`seed ${seed}`, () => {
      const r = rand(seed);
      const before = randomPod(r);
      roundTrip(before, mutate(r, before));
    });
  }
});
