import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import { compileNode } from "./compile.js";
import { compilePattern, matchPattern } from "./match-pattern.js";
import { isSkip } from "./pattern-error.js";
import { compileVerdict, FAIL, PASS, SKIP } from "./verdict.js";
import type { Verdict } from "./verdict.js";
import { walkElement } from "./walk.js";
import { WalkContext } from "./walk-context.js";

/** The verdict the full walk gives: the kind of its mismatch. */
function walkVerdict(pattern: JsonValue, resource: JsonValue): Verdict {
  const m = walkElement(resource, compileNode(pattern), new WalkContext());
  if (m === undefined) return PASS;
  return isSkip(m) ? SKIP : FAIL;
}

/** A small seeded generator, so a failing case can be replayed. */
function generator(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return (s >>> 8) % n;
  };
}

// Few keys and values, so patterns and resources often meet.
const KEYS = ["a", "b", "c", "constructor"];
const PREFIXES = ["", "", "", "(", "=(", "X(", "^(", "<(", "+("];
const PATTERN_LEAVES: JsonValue[] = ["x", "y", "*", "?*", "!x", ">1", "<5", "1-3", "x | y", "false", "", 1, 2, true, false, null];
const RESOURCE_LEAVES: JsonValue[] = ["x", "y", "xy", "", "false", 0, 1, 2, 4, true, false, null];

function genPattern(pick: (n: number) => number, depth: number): JsonValue {
  const r = pick(depth <= 0 ? 1 : 6);
  if (r === 0 || r === 1 || depth <= 0) return PATTERN_LEAVES[pick(PATTERN_LEAVES.length)] ?? null;
  if (r <= 3) return genPatternMap(pick, depth);
  switch (pick(4)) {
    case 0:
      return [];
    case 1:
      return [genPatternMap(pick, depth - 1)];
    case 2:
      return [PATTERN_LEAVES[pick(PATTERN_LEAVES.length)] ?? null];
    default:
      return [[genPattern(pick, depth - 1)], [genPattern(pick, depth - 1)]];
  }
}

function genPatternMap(pick: (n: number) => number, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = pick(4);
  for (let i = 0; i < n; i++) {
    const prefix = PREFIXES[pick(PREFIXES.length)] ?? "";
    const key = KEYS[pick(KEYS.length)] ?? "a";
    const raw = prefix === "" ? key : `${prefix}${key})`;
    out[raw] = prefix === "^(" && pick(3) > 0 ? [genPatternMap(pick, depth - 1)] : genPattern(pick, depth - 1);
  }
  return out;
}

function genResource(pick: (n: number) => number, depth: number): JsonValue {
  const r = pick(depth <= 0 ? 1 : 5);
  if (r === 0 || depth <= 0) return RESOURCE_LEAVES[pick(RESOURCE_LEAVES.length)] ?? null;
  if (r <= 2) {
    const out: JsonObject = {};
    const n = pick(4);
    for (let i = 0; i < n; i++) out[KEYS[pick(3)] ?? "a"] = genResource(pick, depth - 1);
    return out;
  }
  const n = pick(4);
  return Array.from({ length: n }, () => genResource(pick, depth - 1));
}

/** A resource shaped after a pattern, with random changes, so that many cases pass or skip. */
function resourceLike(pick: (n: number) => number, pattern: JsonValue): JsonValue {
  if (pick(8) === 0) return genResource(pick, 2);
  if (Array.isArray(pattern)) {
    const first = pattern[0];
    if (first === undefined) return [];
    if (Array.isArray(first)) return pattern.map((p) => resourceLike(pick, p));
    return Array.from({ length: pick(4) }, () => resourceLike(pick, first));
  }
  if (pattern !== null && typeof pattern === "object") {
    const out: JsonObject = {};
    for (const [raw, value] of Object.entries(pattern)) {
      if (pick(4) === 0) continue;
      const key = raw.endsWith(")") ? raw.slice(raw.indexOf("(") + 1, -1) : raw;
      out[key] = resourceLike(pick, value);
    }
    return out;
  }
  return pick(2) === 0 ? pattern : (RESOURCE_LEAVES[pick(RESOURCE_LEAVES.length)] ?? null);
}

/** Wildcard label and annotation keys, expanded against the resource's metadata. */
function genMetadata(pick: (n: number) => number): { pattern: JsonValue; resource: JsonValue } {
  const labelKeys = ["app", "team", "app.kubernetes.io/name"];
  const patternKeys = ["app*", "=(te?m)", "(app.*)", "*", "team", "X(a*)"];
  const labels: JsonObject = {};
  for (let i = pick(3); i > 0; i--) labels[labelKeys[pick(labelKeys.length)] ?? "app"] = ["web", "db", ""][pick(3)] ?? "";
  const patternLabels: JsonObject = {};
  for (let i = 1 + pick(2); i > 0; i--) patternLabels[patternKeys[pick(patternKeys.length)] ?? "*"] = ["web", "?*", "db | web", "*"][pick(4)] ?? "*";
  const tag = pick(2) === 0 ? "labels" : "=(annotations)";
  const resourceTag = tag === "labels" ? "labels" : "annotations";
  return {
    pattern: { [pick(2) === 0 ? "metadata" : "=(metadata)"]: { [tag]: patternLabels }, ...(pick(2) === 0 ? { spec: genPattern(pick, 2) } : {}) },
    resource: { metadata: pick(4) === 0 ? {} : { name: "p", [resourceTag]: labels }, spec: genResource(pick, 2) },
  };
}

function generated(pick: (n: number) => number, i: number): { pattern: JsonValue; resource: JsonValue } {
  if (i % 5 === 4) return genMetadata(pick);
  const pattern = genPattern(pick, 4);
  return { pattern, resource: i % 5 < 2 ? genResource(pick, 4) : resourceLike(pick, pattern) };
}

describe("compiled verdicts agree with the pattern walk", () => {
  test("generated patterns and resources: the same verdict and the same outcome", () => {
    const pick = generator(20260419);
    const counts = [0, 0, 0];
    for (let i = 0; i < 20000; i++) {
      const { pattern, resource } = generated(pick, i);
      const want = walkVerdict(pattern, resource);
      const got = compileVerdict(compileNode(pattern))(resource);
      const what = `case ${i}: pattern ${JSON.stringify(pattern)} resource ${JSON.stringify(resource)}`;
      assert.equal(got, want, what);
      assert.deepEqual(compilePattern(pattern).match(resource), matchPattern(resource, pattern), what);
      counts[want] = (counts[want] ?? 0) + 1;
    }
    // The generator reaches every verdict often enough for the comparison to mean something.
    for (const c of counts) assert.ok(c > 1000, `verdict counts ${counts.join(", ")}`);
  });

  test("a key that objects inherit is absent unless the map holds it", () => {
    const verdict = compileVerdict(compileNode({ "=(constructor)": "x", toString: "*" }));
    assert.equal(verdict({ toString: "y" }), PASS);
    assert.equal(verdict({}), FAIL);
    assert.equal(verdict({ constructor: "y", toString: "y" }), FAIL);
  });

  test("anchors: skip from a condition, fail from a negation, pass when an equality key is absent", () => {
    const verdict = compileVerdict(compileNode({ spec: { "(hostNetwork)": true, "X(hostPath)": null, "=(hostPID)": false } }));
    assert.equal(verdict({ spec: {} }), SKIP);
    assert.equal(verdict({ spec: { hostNetwork: true } }), PASS);
    assert.equal(verdict({ spec: { hostNetwork: true, hostPath: "/" } }), FAIL);
    assert.equal(verdict({ spec: { hostNetwork: false, hostPath: "/" } }), SKIP);
  });

  test("one compiled pattern with wildcard metadata keys expands against each resource anew", () => {
    const pattern: JsonValue = { metadata: { "=(annotations)": { "=(container.apparmor.security.beta.kubernetes.io/*)": "runtime/default | localhost/*" }, labels: { "app*": "web" } } };
    const compiled = compilePattern(pattern);
    const pick = generator(7);
    const annotationKeys = ["container.apparmor.security.beta.kubernetes.io/app", "container.apparmor.security.beta.kubernetes.io/db", "other"];
    const labelKeys = ["app", "application", "team"];
    const statuses = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const annotations: JsonObject = {};
      for (let n = pick(3); n > 0; n--) annotations[annotationKeys[pick(3)] ?? "other"] = ["runtime/default", "localhost/x", "unconfined"][pick(3)] ?? "";
      const labels: JsonObject = {};
      for (let n = pick(3); n > 0; n--) labels[labelKeys[pick(3)] ?? "team"] = ["web", "db"][pick(2)] ?? "";
      const resource: JsonValue = { metadata: { name: "p", ...(pick(4) > 0 ? { annotations } : {}), ...(pick(4) > 0 ? { labels } : {}) } };
      const got = compiled.match(resource);
      assert.deepEqual(got, matchPattern(resource, pattern), JSON.stringify(resource));
      statuses.add(got.status);
    }
    assert.deepEqual([...statuses].sort(), ["fail", "pass"]);
  });

  test("resources whose picked metadata keys would join alike each get their own expansion", () => {
    // "k1*" and "*k3" pick "k1\u0000k2" and "k3" from one Pod, "k1" and "k2\u0000k3" from the other.
    const compiled = compilePattern({ metadata: { labels: { "k1*": "v", "*k3": "w" } } });
    const first: JsonValue = { metadata: { labels: { "k1\u0000k2": "v", k3: "w" } } };
    const second: JsonValue = { metadata: { labels: { k1: "v", "k2\u0000k3": "w" } } };
    assert.equal(compiled.match(first).status, "pass");
    assert.equal(compiled.match(second).status, "pass");
  });
});
