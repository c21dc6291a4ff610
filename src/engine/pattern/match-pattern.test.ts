import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../api/json.js";
import { compilePattern, matchPattern } from "./index.js";
import type { PatternOutcome } from "./index.js";
import { pod } from "../../../test/support/builders.js";

/** [what, resource, pattern, expected status, expected path for fails] */
type Row = readonly [string, JsonValue, JsonValue, PatternOutcome["status"], string?];

function table(name: string, rows: readonly Row[]): void {
  describe(name, () => {
    for (const [what, resource, pattern, status, path] of rows) {
      test(what, () => {
        const got = matchPattern(resource, pattern);
        assert.equal(got.status, status, JSON.stringify(got));
        if (path !== undefined) assert.equal(got.status === "fail" ? got.path : undefined, path);
      });
    }
  });
}

const podWith = (containers: JsonValue[], extra: Record<string, JsonValue> = {}): JsonValue =>
  pod({ name: "p", namespace: null, labels: { app: "web" }, containers, spec: extra });

table("maps and absent keys (Kyverno validateMap)", [
  [
    "every plain key must exist",
    podWith([]),
    { metadata: { labels: { team: "?*" } } },
    "fail",
    "/metadata/labels/team/",
  ],
  ["a matching value passes", podWith([]), { metadata: { labels: { app: "web" } } }, "pass"],
  [
    "a map pattern against an absent key fails at its path",
    podWith([]),
    { spec: { securityContext: { runAsNonRoot: true } } },
    "fail",
    "/spec/securityContext/",
  ],
  ["a map pattern against a scalar fails", { a: "x" }, { a: { b: 1 } }, "fail", "/a/"],
  ['"*" needs the key to exist', podWith([]), { spec: { nodeName: "*" } }, "fail", "/spec/"],
  ['"*" accepts any present value', { spec: { nodeName: { any: ["thing"] } } }, { spec: { nodeName: "*" } }, "pass"],
  ['"*" rejects a null value', { spec: { nodeName: null } }, { spec: { nodeName: "*" } }, "fail", "/spec/"],
  ['"" does not accept an absent key (docs≠code)', { spec: {} }, { spec: { x: "" } }, "fail", "/spec/x/"],
  ["null accepts an absent key", { spec: {} }, { spec: { x: null } }, "pass"],
  ['"<5" accepts an absent key (nil counts as 0)', { spec: {} }, { spec: { replicas: "<5" } }, "pass"],
  ['">0" rejects an absent key', { spec: {} }, { spec: { replicas: ">0" } }, "fail", "/spec/replicas/"],
  ["an empty map pattern only needs a map", { spec: { a: 1 } }, { spec: {} }, "pass"],
  ["inherited object properties are not keys", { spec: {} }, { spec: { constructor: "*" } }, "fail", "/spec/"],
]);

table("anchors (Kyverno pkg/engine/anchor)", [
  ["(k) absent: skip", podWith([]), { spec: { "(hostNetwork)": true, hostPID: false } }, "skip"],
  [
    "(k) mismatch: skip",
    podWith([], { hostNetwork: false }),
    { spec: { "(hostNetwork)": true, hostPID: false } },
    "skip",
  ],
  [
    "(k) match: siblings apply",
    podWith([], { hostNetwork: true }),
    { spec: { "(hostNetwork)": true, hostPID: false } },
    "fail",
    "/spec/hostPID/",
  ],
  [
    "(k) match and siblings match: pass",
    podWith([], { hostNetwork: true, hostPID: false }),
    { spec: { "(hostNetwork)": true, hostPID: false } },
    "pass",
  ],
  ["=(k) absent: pass", podWith([]), { spec: { "=(hostPID)": false } }, "pass"],
  ["=(k) present and matching: pass", podWith([], { hostPID: false }), { spec: { "=(hostPID)": false } }, "pass"],
  [
    "=(k) present and different: fail",
    podWith([], { hostPID: true }),
    { spec: { "=(hostPID)": false } },
    "fail",
    "/spec/hostPID/",
  ],
  [
    "X(k) present: fail whatever the value",
    podWith([], { hostPath: null }),
    { spec: { "X(hostPath)": "null" } },
    "fail",
    "/spec/hostPath/",
  ],
  ["X(k) absent: pass", podWith([]), { spec: { "X(hostPath)": "null" } }, "pass"],
  [
    "^(k) one element matches: pass",
    podWith([
      { name: "a", image: "x" },
      { name: "b", image: "nginx" },
    ]),
    { spec: { "^(containers)": [{ image: "nginx" }] } },
    "pass",
  ],
  [
    "^(k) no element matches: fail",
    podWith([{ name: "a", image: "x" }]),
    { spec: { "^(containers)": [{ image: "nginx" }] } },
    "fail",
    "/spec/containers/",
  ],
  [
    "^(k) every pattern item needs a match",
    podWith([{ image: "nginx" }]),
    { spec: { "^(containers)": [{ image: "nginx" }, { image: "redis" }] } },
    "fail",
    "/spec/containers/",
  ],
  [
    "^(k) on a non-list: fail",
    { spec: { containers: { a: 1 } } },
    { spec: { "^(containers)": [{ a: 1 }] } },
    "fail",
    "/spec/containers/",
  ],
  [
    "^(k) with a non-list pattern: fail",
    podWith([{ image: "x" }]),
    { spec: { "^(containers)": { image: "x" } } },
    "fail",
    "/spec/containers/",
  ],
  ["^(k) absent: pass", { spec: {} }, { spec: { "^(containers)": [{ image: "nginx" }] } }, "pass"],
  [
    "^(k) on an empty list: fail",
    podWith([]),
    { spec: { "^(containers)": [{ image: "nginx" }] } },
    "fail",
    "/spec/containers/",
  ],
  [
    "<(k) present and different: skip, even though a sibling fails",
    podWith([{ name: "a", image: "docker.io/x" }], { imagePullSecrets: [{ name: "other" }] }),
    { spec: { containers: [{ name: "*", "<(image)": "corp.reg.com/*" }], imagePullSecrets: [{ name: "my-secret" }] } },
    "skip",
  ],
  [
    "<(k) matching: the rest applies",
    podWith([{ name: "a", image: "corp.reg.com/x" }], { imagePullSecrets: [{ name: "other" }] }),
    { spec: { containers: [{ name: "*", "<(image)": "corp.reg.com/*" }], imagePullSecrets: [{ name: "my-secret" }] } },
    "fail",
    "/spec/imagePullSecrets/0/name/",
  ],
  ["<(k) absent: continue", { spec: { a: 1 } }, { spec: { "<(b)": "x", a: 2 } }, "fail", "/spec/a/"],
  ["+(k) is a literal key in validate", { a: 1 }, { "+(a)": 1 }, "fail", "/+(a)/"],
  [
    "a condition inside a condition: skip",
    podWith([]),
    {
      "(spec)": { "(volumes)": [{ "(hostPath)": { path: "/var/run/docker.sock" } }] },
      metadata: { labels: { "allow-docker": "true" } },
    },
    "skip",
  ],
  [
    "a negation inside a condition is a skip",
    podWith([], { hostNetwork: true }),
    { "(spec)": { "X(hostNetwork)": "null" } },
    "skip",
  ],
]);

table("evaluation order", [
  ["anchors come before plain keys", { a: "wrong", b: "no" }, { a: "x", "(b)": "yes" }, "skip"],
  [
    "keys holding nested anchors come first among plain keys",
    { a: "wrong", spec: { x: "n" } },
    { a: "x", spec: { "(x)": "y" } },
    "skip",
  ],
  ["otherwise plain keys go in sorted order", { a: "1", b: "2" }, { b: "x", a: "y" }, "fail", "/a/"],
  [
    "a conditional anchor skip wins over a sibling anchor failure",
    { spec: { hostNetwork: false, hostPID: true } },
    { spec: { "(hostNetwork)": true, "=(hostPID)": false } },
    "skip",
  ],
  [
    "a skip below an equality anchor lets a sibling anchor fail the map",
    {
      spec: {
        containers: [{ image: "test/foo:1.2.3" }],
        initContainers: [{ image: "test/bar:1", securityContext: { allowPrivilegeEscalation: true } }],
      },
    },
    {
      spec: {
        "=(containers)": [{ "(image)": "!*/foo:*", securityContext: { allowPrivilegeEscalation: false } }],
        "=(initContainers)": [{ "(image)": "!*/foo:*", securityContext: { allowPrivilegeEscalation: false } }],
      },
    },
    "fail",
    "/spec/initContainers/0/securityContext/allowPrivilegeEscalation/",
  ],
  [
    "when every anchor skipped, plain keys are not checked",
    { spec: { env: [{ name: "A" }] } },
    { spec: { "=(env)": [{ "(name)": "B", value: "x" }], missing: "?*" } },
    "skip",
  ],
]);

table("arrays (Kyverno validateArray)", [
  [
    "the first map applies to every element",
    podWith([
      { name: "a", image: "nginx:1" },
      { name: "b", image: "nginx:latest" },
    ]),
    { spec: { containers: [{ image: "!*:latest" }] } },
    "fail",
    "/spec/containers/1/image/",
  ],
  [
    "further pattern elements are ignored",
    podWith([{ name: "a" }]),
    { spec: { containers: [{ name: "a" }, { name: "zzz" }] } },
    "pass",
  ],
  [
    "every element skipped: skip",
    podWith([{ name: "redis" }, { name: "mysql" }]),
    { spec: { containers: [{ "(name)": "nginx", image: "x" }] } },
    "skip",
  ],
  [
    "some elements skipped, others pass: pass",
    podWith([{ name: "redis" }, { name: "nginx", image: "x" }]),
    { spec: { containers: [{ "(name)": "nginx", image: "x" }] } },
    "pass",
  ],
  [
    "a skipped element does not hide a failing one",
    podWith([{ name: "redis" }, { name: "nginx", image: "y" }]),
    { spec: { containers: [{ "(name)": "nginx", image: "x" }] } },
    "fail",
    "/spec/containers/1/image/",
  ],
  ["an empty resource list passes", podWith([]), { spec: { containers: [{ image: "x" }] } }, "pass"],
  [
    "a scalar first element must match every element",
    { spec: { ports: [80, 443] } },
    { spec: { ports: ["<1024"] } },
    "pass",
  ],
  [
    "a failing scalar element fails at the list path",
    { spec: { ports: [80, 8080] } },
    { spec: { ports: ["<1024"] } },
    "fail",
    "/spec/ports/",
  ],
  [
    "a scalar pattern checks every element of a list value",
    { spec: { args: ["-a", "-b"] } },
    { spec: { args: "-?" } },
    "pass",
  ],
  [
    "a scalar pattern against a list value fails on one element",
    { spec: { args: ["-a", "--bad"] } },
    { spec: { args: "-?" } },
    "fail",
    "/spec/args/",
  ],
  ["an empty pattern list fails", { spec: { a: [1] } }, { spec: { a: [] } }, "fail", "/spec/a/"],
  ["a list pattern against a map fails", { spec: { a: { b: 1 } } }, { spec: { a: [{ b: 1 }] } }, "fail", "/spec/a/"],
  [
    "nested lists match by position; extra resource elements are not checked",
    { m: [[1], [2, 2], [9]] },
    { m: [[1], [2]] },
    "pass",
  ],
  ["nested lists fail at the element path", { m: [[1], [5]] }, { m: [[1], [2]] }, "fail", "/m/1/"],
  ["a shorter resource list than a positional pattern is an error", { m: [[1]] }, { m: [[1], [2]] }, "error"],
  ["a non-map element against a map pattern fails", { items: ["x"] }, { items: [{ a: 1 }] }, "fail", "/items/0/"],
]);

table("metadata wildcard keys", [
  [
    "a wildcard label key is matched against real keys",
    { metadata: { labels: { "app.kubernetes.io/name": "web" } } },
    { metadata: { labels: { "app.kubernetes.io/*": "web" } } },
    "pass",
  ],
  [
    "the expanded key's value must still match",
    { metadata: { labels: { "app.kubernetes.io/name": "db" } } },
    { metadata: { labels: { "app.kubernetes.io/*": "web" } } },
    "fail",
    "/metadata/labels/app.kubernetes.io/name/",
  ],
  [
    "a wildcard key matching nothing is looked up literally",
    { metadata: { labels: { other: "x" } } },
    { metadata: { labels: { "app.kubernetes.io/*": "?*" } } },
    "fail",
    "/metadata/labels/app.kubernetes.io/*/",
  ],
  [
    "anchors are kept on expanded keys",
    { metadata: { annotations: { "fluxcd.io/sync": "x" } } },
    { metadata: { "=(annotations)": { "X(fluxcd.io/*)": "*?" } } },
    "fail",
    "/metadata/annotations/fluxcd.io/sync/",
  ],
  [
    "an anchored wildcard key matching nothing passes",
    { metadata: { annotations: { a: "x" } } },
    { metadata: { "=(annotations)": { "X(fluxcd.io/*)": "*?" } } },
    "pass",
  ],
  [
    "expansion also applies below spec.template",
    { spec: { template: { metadata: { labels: { "team-a": "x" } } } } },
    { spec: { template: { metadata: { labels: { "team-*": "x" } } } } },
    "pass",
  ],
]);

describe("failure messages and paths", () => {
  test("a scalar mismatch names the value, the pattern and the path", () => {
    const got = matchPattern(podWith([{ name: "a", image: "nginx:latest" }]), {
      spec: { containers: [{ image: "!*:latest" }] },
    });
    assert.deepEqual(got, {
      status: "fail",
      path: "/spec/containers/0/image/",
      message: "resource value 'nginx:latest' does not match '!*:latest' at path /spec/containers/0/image/",
    });
  });

  test("a structure mismatch names the Go types", () => {
    const got = matchPattern({ spec: {} }, { spec: { securityContext: { runAsNonRoot: true } } });
    assert.equal(
      got.status === "fail" ? got.message : "",
      "pattern and resource have different structures. Path: /spec/securityContext/. Expected map[string]interface {}, found <nil>",
    );
  });

  test('a missing "*" key reports the parent path', () => {
    const got = matchPattern({ spec: {} }, { spec: { nodeName: "*" } });
    assert.deepEqual(got, { status: "fail", path: "/spec/", message: "/spec//nodeName not found" });
  });

  test("a negation match says the key is not allowed", () => {
    const got = matchPattern(
      { spec: { volumes: [{ hostPath: { path: "/" } }] } },
      { spec: { "=(volumes)": [{ "X(hostPath)": "null" }] } },
    );
    assert.deepEqual(got, {
      status: "fail",
      path: "/spec/volumes/0/hostPath/",
      message: "negation anchor matched in resource: /spec/volumes/0/hostPath/ is not allowed",
    });
  });

  test("a conditional skip explains why", () => {
    assert.deepEqual(matchPattern({ spec: {} }, { spec: { "(hostNetwork)": true } }), {
      status: "skip",
      message: "conditional anchor mismatch: conditional anchor key doesn't exist in the resource",
    });
    assert.deepEqual(matchPattern({ spec: { hostNetwork: false } }, { spec: { "(hostNetwork)": true } }), {
      status: "skip",
      message: "conditional anchor mismatch: resource value 'false' does not match 'true' at path /spec/hostNetwork/",
    });
  });

  test("skips of every list element are joined with '; '", () => {
    const got = matchPattern(podWith([{ name: "a" }, { name: "b" }]), { spec: { containers: [{ "(name)": "c" }] } });
    assert.equal(
      got.status === "skip" ? got.message : "",
      "conditional anchor mismatch: resource value 'a' does not match 'c' at path /spec/containers/0/name/; " +
        "conditional anchor mismatch: resource value 'b' does not match 'c' at path /spec/containers/1/name/",
    );
  });

  test("a failure while a conditional, existence or negation key was never present is an error", () => {
    const got = matchPattern({ spec: { image: "a" } }, { spec: { "X(hostPath)": "null", image: "b" } });
    assert.deepEqual(got, { status: "error", message: "resource value 'a' does not match 'b' at path /spec/image/" });
  });

  test("the same failure is a fail once the anchored key has been seen", () => {
    const got = matchPattern(
      { spec: { hostNetwork: true, hostPID: true } },
      { spec: { "(hostNetwork)": true, hostPID: false } },
    );
    assert.equal(got.status, "fail");
  });
});

describe("compilePattern", () => {
  test("a compiled pattern gives the same outcomes when reused", () => {
    const compiled = compilePattern({ spec: { containers: [{ "(name)": "nginx", image: "nginx:*" }] } });
    assert.equal(compiled.match(podWith([{ name: "nginx", image: "nginx:1" }])).status, "pass");
    assert.equal(compiled.match(podWith([{ name: "nginx", image: "httpd" }])).status, "fail");
    assert.equal(compiled.match(podWith([{ name: "redis", image: "redis" }])).status, "skip");
    assert.equal(compiled.match(podWith([{ name: "nginx", image: "nginx:2" }])).status, "pass");
  });

  test("metadata wildcard expansion does not leak between resources", () => {
    const compiled = compilePattern({ metadata: { labels: { "team-*": "?*" } } });
    assert.equal(compiled.match({ metadata: { labels: { "team-a": "x" } } }).status, "pass");
    assert.equal(compiled.match({ metadata: { labels: { "team-b": "y" } } }).status, "pass");
    assert.equal(compiled.match({ metadata: { labels: { other: "y" } } }).status, "fail");
  });
});
