import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import type { Operation, RequestUserInfo } from "../api/resource.js";
import { buildRequestContext } from "../context/request-context.js";
import { kyvernoFunctions } from "../jmespath/functions/kyverno/index.js";
import { createJmesPath } from "../jmespath/index.js";
import { ExpressionCache, substituteAll } from "../variables/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compileException } from "./compile-exception.js";
import { exceptionPolicyKey, matchExceptions } from "./match-exceptions.js";
import type { CompiledException, ExceptionMatchInput } from "./types.js";
import { pod } from "../../../test/support/builders.js";

const jmespath = createJmesPath({ functions: kyvernoFunctions() });
const cache = new ExpressionCache(jmespath);

function exception(name: string, spec: JsonObject, namespace = "delta"): CompiledException {
  const r = compileException({
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name, namespace },
    spec,
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.exception;
}

const deltaPod = (name: string, namespace = "delta", labels: Record<string, string> = {}): JsonObject =>
  pod({ name, namespace, labels, containers: [{ name: "c", image: "busybox:1.35" }] });

const deployment: JsonObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "important-tool", namespace: "delta", labels: { app: "busybox" } },
  spec: {},
};

interface Req {
  policy?: string;
  rule?: string;
  resource?: JsonObject;
  operation?: Operation;
  userInfo?: RequestUserInfo;
  namespaceLabels?: Record<string, string>;
  background?: boolean;
}

function input(r: Req = {}): ExceptionMatchInput {
  const resource = r.resource ?? deltaPod("important-tool");
  const operation = r.operation ?? "CREATE";
  const data = buildRequestContext({ resource, operation, ...(r.userInfo ? { userInfo: r.userInfo } : {}) });
  return {
    policy: r.policy ?? "disallow-host-namespaces",
    rule: r.rule ?? "host-namespaces",
    resource,
    operation,
    ...(r.userInfo ? { userInfo: r.userInfo } : {}),
    namespaceLabels: r.namespaceLabels ?? {},
    substitute: (v) => substituteAll(v, { data, jmespath, fnctx: { ports: fakePorts() }, cache, operation }),
    ...(r.background !== undefined ? { background: r.background } : {}),
  };
}

const podsInDelta = { any: [{ resources: { kinds: ["Pod"], namespaces: ["delta"] } }] };
const names = (list: readonly CompiledException[]): string[] => list.map((e) => e.key);

describe("matchExceptions: policy and rule names", () => {
  const ex = exception("e", {
    exceptions: [{ policyName: "disallow-host-namespaces", ruleNames: ["host-*"] }],
    match: podsInDelta,
  });
  const wildPolicy = exception("wild", {
    exceptions: [{ policyName: "disallow-*", ruleNames: ["*"] }],
    match: podsInDelta,
  });
  const nsPolicy = exception("ns", {
    exceptions: [{ policyName: "team-a/disallow-host-namespaces", ruleNames: ["host-namespaces"] }],
    match: podsInDelta,
  });
  const autogenListed = exception("auto", {
    exceptions: [{ policyName: "disallow-host-namespaces", ruleNames: ["host-namespaces", "autogen-host-namespaces"] }],
    match: { any: [{ resources: { kinds: ["Pod", "Deployment"] } }] },
  });
  const exact = exception("exact", {
    exceptions: [{ policyName: "disallow-host-namespaces", ruleNames: ["host-namespaces"] }],
    match: { any: [{ resources: { kinds: ["Pod", "Deployment"] } }] },
  });
  const rows: [string, Req, readonly CompiledException[], string[]][] = [
    ["a wildcard rule name matches", { rule: "host-namespaces" }, [ex], ["delta/e"]],
    ["the wildcard must match the whole rule name", { rule: "no-host-namespaces" }, [ex], []],
    ["the policy name is compared exactly: a wildcard there matches nothing", {}, [wildPolicy], []],
    [
      "a ClusterPolicy key does not select a namespaced Policy entry",
      { policy: "disallow-host-namespaces" },
      [nsPolicy],
      [],
    ],
    [
      "a namespaced Policy is named namespace/name",
      { policy: "team-a/disallow-host-namespaces" },
      [nsPolicy],
      ["delta/ns"],
    ],
    [
      "an autogen rule is excepted when it is listed",
      { rule: "autogen-host-namespaces", resource: deployment },
      [autogenListed],
      ["delta/auto"],
    ],
    [
      "an autogen rule is not excepted by its pod rule's name",
      { rule: "autogen-host-namespaces", resource: deployment },
      [exact],
      [],
    ],
    [
      "the cronjob autogen rule needs its own name",
      { rule: "autogen-cronjob-host-namespaces", resource: deployment },
      [autogenListed],
      [],
    ],
  ];
  for (const [what, req, list, expected] of rows) {
    test(what, () => assert.deepEqual(names(matchExceptions(list, input(req))), expected));
  }

  test("exceptionPolicyKey names a Policy by namespace/name and a ClusterPolicy by name", () => {
    assert.equal(exceptionPolicyKey({ kind: "Policy", name: "p", namespace: "team-a" }), "team-a/p");
    assert.equal(exceptionPolicyKey({ kind: "ClusterPolicy", name: "p", namespace: "" }), "p");
  });
});

describe("matchExceptions: match", () => {
  const entry = [{ policyName: "disallow-host-namespaces", ruleNames: ["*"] }];
  const rows: [string, JsonObject, Req, boolean][] = [
    [
      "any: one filter selecting is enough",
      { any: [{ resources: { kinds: ["Deployment"] } }, { resources: { kinds: ["Pod"] } }] },
      {},
      true,
    ],
    ["any: no filter selecting", { any: [{ resources: { kinds: ["Deployment"] } }] }, {}, false],
    [
      "all: every filter must select",
      { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["delta"] } }] },
      {},
      true,
    ],
    [
      "all: one filter not selecting",
      { all: [{ resources: { kinds: ["Pod"] } }, { resources: { namespaces: ["prod"] } }] },
      {},
      false,
    ],
    ["namespaces with a wildcard", { any: [{ resources: { namespaces: ["del*"] } }] }, {}, true],
    [
      "another namespace",
      { any: [{ resources: { kinds: ["Pod"], namespaces: ["delta"] } }] },
      { resource: deltaPod("important-tool", "prod") },
      false,
    ],
    [
      "names with a wildcard",
      { any: [{ resources: { names: ["important-tool*"] } }] },
      { resource: deltaPod("important-tool-7d9f") },
      true,
    ],
    [
      "a label selector",
      { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { app: "busybox" } } } }] },
      { resource: deltaPod("x", "delta", { app: "busybox" }) },
      true,
    ],
    [
      "a label selector not met",
      { any: [{ resources: { kinds: ["Pod"], selector: { matchLabels: { app: "busybox" } } } }] },
      { resource: deltaPod("x", "delta", { app: "nginx" }) },
      false,
    ],
    [
      "a namespaceSelector",
      { any: [{ resources: { kinds: ["Pod"], namespaceSelector: { matchLabels: { tier: "tools" } } } }] },
      { namespaceLabels: { tier: "tools" } },
      true,
    ],
    [
      "a namespaceSelector not met",
      { any: [{ resources: { kinds: ["Pod"], namespaceSelector: { matchLabels: { tier: "tools" } } } }] },
      { namespaceLabels: { tier: "web" } },
      false,
    ],
    [
      "a kind with group and version",
      { any: [{ resources: { kinds: ["apps/v1/Deployment"] } }] },
      { resource: deployment },
      true,
    ],
    [
      "operations",
      { any: [{ resources: { kinds: ["Pod"], operations: ["UPDATE"] } }] },
      { operation: "CREATE" },
      false,
    ],
    ["a match with neither any nor all selects nothing", {}, {}, false],
    ["an empty filter selects nothing", { any: [{}] }, {}, false],
  ];
  for (const [what, match, req, expected] of rows) {
    test(what, () => {
      const ex = exception("e", { exceptions: entry, match });
      assert.equal(matchExceptions([ex], input(req)).length === 1, expected);
    });
  }

  test("subjects of a non-background exception are checked against the requesting user", () => {
    const ex = exception("u", {
      background: false,
      exceptions: entry,
      match: { any: [{ resources: { kinds: ["Pod"] }, subjects: [{ kind: "User", name: "alice" }] }] },
    });
    const alice: RequestUserInfo = { username: "alice", groups: [], roles: [], clusterRoles: [] };
    const bob: RequestUserInfo = { username: "bob", groups: [], roles: [], clusterRoles: [] };
    assert.equal(matchExceptions([ex], input({ userInfo: alice })).length, 1);
    assert.equal(matchExceptions([ex], input({ userInfo: bob })).length, 0);
    // Without user information (a background scan, or the CLI without --userinfo) subjects never match.
    assert.equal(matchExceptions([ex], input()).length, 0);
  });
});

describe("matchExceptions: conditions, background, namespaces", () => {
  const entry = [{ policyName: "disallow-host-namespaces", ruleNames: ["host-namespaces"] }];
  const withLabel = (value: string): CompiledException =>
    exception(`c-${value}`, {
      exceptions: entry,
      match: podsInDelta,
      conditions: { any: [{ key: "{{ request.object.metadata.labels.app || '' }}", operator: "Equals", value }] },
    });

  test("conditions that hold keep the exception, conditions that do not drop it", () => {
    const req = input({ resource: deltaPod("important-tool", "delta", { app: "busybox" }) });
    assert.deepEqual(names(matchExceptions([withLabel("busybox"), withLabel("nginx")], req)), ["delta/c-busybox"]);
  });

  test("a condition that cannot be evaluated drops only that exception", () => {
    const broken = exception("broken", {
      exceptions: entry,
      match: podsInDelta,
      conditions: { all: [{ key: "{{ request.object.metadata.missing.deeper }}", operator: "Equals", value: "x" }] },
    });
    const plain = exception("plain", { exceptions: entry, match: podsInDelta });
    assert.deepEqual(names(matchExceptions([broken, plain], input())), ["delta/plain"]);
  });

  test("matched exceptions keep the order they were given in", () => {
    const a = exception("a", { exceptions: entry, match: podsInDelta });
    const b = exception("b", { exceptions: entry, match: podsInDelta }, "other");
    assert.deepEqual(names(matchExceptions([b, a], input())), ["other/b", "delta/a"]);
  });

  test("background scans ignore exceptions with background: false", () => {
    const off = exception("off", { background: false, exceptions: entry, match: podsInDelta });
    const on = exception("on", { exceptions: entry, match: podsInDelta });
    assert.deepEqual(names(matchExceptions([off, on], input({ background: true }))), ["delta/on"]);
    assert.deepEqual(names(matchExceptions([off, on], input())), ["delta/off", "delta/on"]);
  });

  test("allowedNamespaces keeps only exceptions living there (exact names)", () => {
    const here = exception("here", { exceptions: entry, match: podsInDelta }, "kyverno-exceptions");
    const there = exception("there", { exceptions: entry, match: podsInDelta }, "delta");
    assert.deepEqual(names(matchExceptions([here, there], input(), { allowedNamespaces: ["kyverno-exceptions"] })), [
      "kyverno-exceptions/here",
    ]);
    assert.deepEqual(names(matchExceptions([here, there], input(), { allowedNamespaces: ["kyverno-*"] })), []);
    assert.equal(matchExceptions([here, there], input(), { allowedNamespaces: [] }).length, 2);
  });
});
