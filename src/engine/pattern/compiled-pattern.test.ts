/** A pattern compiled once and matched against many resources. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject, JsonValue } from "../api/json.js";
import { seededRandom } from "../../../test/support/seeded-random.js";
import { compilePattern, matchPattern } from "./match-pattern.js";

describe("compilePattern", () => {
  test("a key that objects inherit is absent unless the map holds it", () => {
    const compiled = compilePattern({ "=(constructor)": "x", toString: "*" });
    assert.equal(compiled.match({ toString: "y" }).status, "pass");
    assert.deepEqual(compiled.match({}), { status: "fail", path: "/", message: "//toString not found" });
    assert.deepEqual(compiled.match({ constructor: "y", toString: "y" }), {
      status: "fail",
      path: "/constructor/",
      message: "resource value 'y' does not match 'x' at path /constructor/",
    });
  });

  test("anchors: skip from a condition, fail from a negation, pass when an equality key is absent", () => {
    const compiled = compilePattern({ spec: { "(hostNetwork)": true, "X(hostPath)": null, "=(hostPID)": false } });
    assert.equal(compiled.match({ spec: {} }).status, "skip");
    assert.equal(compiled.match({ spec: { hostNetwork: true } }).status, "pass");
    assert.equal(compiled.match({ spec: { hostNetwork: true, hostPath: "/" } }).status, "fail");
    assert.equal(compiled.match({ spec: { hostNetwork: false, hostPath: "/" } }).status, "skip");
  });

  test("one compiled pattern with wildcard metadata keys expands against each resource anew", () => {
    const pattern: JsonValue = {
      metadata: {
        "=(annotations)": { "=(container.apparmor.security.beta.kubernetes.io/*)": "runtime/default | localhost/*" },
        labels: { "app*": "web" },
      },
    };
    const compiled = compilePattern(pattern);
    const random = seededRandom(7);
    const pick = (n: number): number => Math.floor(random() * n);
    const annotationKeys = [
      "container.apparmor.security.beta.kubernetes.io/app",
      "container.apparmor.security.beta.kubernetes.io/db",
      "other",
    ];
    const labelKeys = ["app", "application", "team"];
    const statuses = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const annotations: JsonObject = {};
      for (let n = pick(3); n > 0; n--)
        annotations[annotationKeys[pick(3)] ?? "other"] =
          ["runtime/default", "localhost/x", "unconfined"][pick(3)] ?? "";
      const labels: JsonObject = {};
      for (let n = pick(3); n > 0; n--) labels[labelKeys[pick(3)] ?? "team"] = ["web", "db"][pick(2)] ?? "";
      const resource: JsonValue = {
        metadata: { name: "p", ...(pick(4) > 0 ? { annotations } : {}), ...(pick(4) > 0 ? { labels } : {}) },
      };
      // The compiled pattern, matched after many other resources, answers as a fresh compile does.
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
