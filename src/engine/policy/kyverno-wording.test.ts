/**
 * The policy webhook's refusals in Kyverno's words (pkg/validation/policy/validate.go,
 * pkg/engine/variables ValidateElementInForEach), behind Bylaw's field path: what is refused is
 * unchanged, only how it is worded.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const ok = podRule("r", { pattern: { metadata: { name: "?*" } } });

function texts(doc: JsonObject): string[] {
  const r = engine.compile(doc);
  return r.ok ? [] : r.problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`);
}

const BACKGROUND =
  "only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule";

describe("policy webhook texts follow Kyverno's", () => {
  test("background mode: a user-information variable, named as written", () => {
    const doc = clusterPolicy("p", [
      podRule("r", { message: "by {{ request.userInfo.username }}", pattern: { metadata: {} } }),
    ]);
    assert.deepEqual(texts(doc), [
      `spec.rules[0]: ${BACKGROUND}: variable {{ request.userInfo.username }} is not allowed`,
    ]);
  });

  test("background mode: userInfo in a match block, at Kyverno's path", () => {
    const rule = (match: JsonObject): JsonObject => ({ ...ok, match });
    assert.deepEqual(
      texts(
        clusterPolicy("p", [
          rule({ any: [{ resources: { kinds: ["Pod"] } }, { resources: { kinds: ["Pod"] }, roles: ["team:a"] }] }),
        ]),
      ),
      [`spec.rules[0].match: ${BACKGROUND}: invalid variable used at path: spec/rules[0]/match/any[1]/roles`],
    );
    assert.deepEqual(
      texts(
        clusterPolicy("p", [ok, { ...rule({ resources: { kinds: ["Pod"] }, clusterRoles: ["admin"] }), name: "r2" }]),
      ),
      [`spec.rules[1].match: ${BACKGROUND}: invalid variable used at path: spec/rules[1]/match/clusterRoles`],
    );
  });

  test("a namespaced Policy may not filter on namespaces, in match or exclude; a ClusterPolicy may", () => {
    const rule: JsonObject = {
      ...ok,
      match: { any: [{ resources: { kinds: ["Pod"], namespaces: ["tenant-b"] } }] },
      exclude: { resources: { kinds: ["Pod"], namespaces: ["kube-system"] } },
    };
    const policy = { ...clusterPolicy("p", [rule]), kind: "Policy", metadata: { name: "p", namespace: "tenant-a" } };
    assert.deepEqual(texts(policy), [
      "spec.rules[0].match.any[0].resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
      "spec.rules[0].exclude.resources.namespaces: Forbidden: Filtering namespaces not allowed in namespaced policies",
    ]);
    assert.deepEqual(texts(clusterPolicy("p", [rule])), []);
  });

  test("a rule over kind * : Kyverno's wildcard checks, each at the kinds list's path", () => {
    const star = (rule: JsonObject, background?: boolean): string[] =>
      texts(
        clusterPolicy("p", [{ name: "r", match: { any: [{ resources: { kinds: ["*"] } }] }, ...rule }], {
          ...(background === undefined ? {} : { background }),
        }),
      );
    const labels = { validate: { pattern: { metadata: { labels: { team: "?*" } } } } };
    assert.deepEqual(star(labels), [
      "spec.rules[0].match.any[0].kinds: wildcard policy not allowed in background mode. Set spec.background=false to disable background mode for this policy rule",
    ]);
    assert.deepEqual(star(labels, false), []);
    assert.deepEqual(star({ validate: { pattern: { spec: { x: "?*" } } } }, false), [
      "spec.rules[0].match.any[0].kinds: policy can only deal with the metadata field of the resource if the rule does not match any kind",
    ]);
    assert.deepEqual(
      star(
        { validate: { deny: { conditions: [{ key: "{{ request.object.spec.x }}", operator: "Equals", value: 1 }] } } },
        false,
      ),
      [
        "spec.rules[0].match.any[0].kinds: policy can only deal with the metadata field of the resource if the rule does not match any kind",
      ],
    );
    assert.deepEqual(
      star({ mutate: { patchesJson6902: "- op: add\n  path: /metadata/labels/a\n  value: b" } }, false),
      [],
    );
    assert.deepEqual(star({ mutate: { patchesJson6902: "- op: add\n  path: /spec/a\n  value: b" } }, false), [
      "spec.rules[0].match.any[0].kinds: policy can only deal with the metadata field of the resource if the rule does not match any kind",
    ]);
    assert.deepEqual(
      texts(
        clusterPolicy("p", [{ name: "r", match: { any: [{ resources: { kinds: ["ConfigMap", "*"] } }] }, ...labels }], {
          background: false,
        }),
      ),
      ["spec.rules[0].match.any[0].kinds: wildcard policy can not deal with more than one kind"],
    );
    assert.deepEqual(
      star({ validate: { foreach: [{ list: "request.object.metadata.labels", deny: {} }] } }, false).filter((t) =>
        t.includes("wildcard"),
      ),
      ["spec.rules[0].match.any[0].kinds: wildcard policy does not support rule type"],
    );
  });

  test("element outside a foreach: the variable and its path in the rule", () => {
    const doc = clusterPolicy("p", [podRule("r", { message: "{{ element.name }}", pattern: { metadata: {} } })], {
      background: false,
    });
    assert.ok(
      texts(doc).includes(
        "spec.rules[0].validate: variable 'element.name' present outside of foreach at path /validate/message",
      ),
      JSON.stringify(texts(doc)),
    );
  });

  test("context entries", () => {
    const withContext = (entry: JsonObject): JsonObject => clusterPolicy("p", [{ ...ok, context: [entry] }]);
    const cases: [JsonObject, string][] = [
      [
        { name: "request", variable: { value: 1 } },
        "spec.rules[0].context[0].name: entry name request is invalid as it conflicts with a pre-defined variable request",
      ],
      [
        { name: "v", variable: {} },
        "spec.rules[0].context[0].variable: a variable must define a value or a jmesPath expression",
      ],
      [
        { name: "v", variable: { value: 1, default: 2 } },
        "spec.rules[0].context[0].variable.default: a variable must define a default value only when a jmesPath expression is defined",
      ],
      [
        { name: "a", apiCall: { urlPath: "/api/v1/pods", service: { url: "https://x" } } },
        "spec.rules[0].context[0].apiCall: a URLPath cannot be used for service API calls",
      ],
    ];
    for (const [entry, want] of cases)
      assert.ok(texts(withContext(entry)).includes(want), `${want} in ${JSON.stringify(texts(withContext(entry)))}`);
  });

  test("a condition without an operator", () => {
    const doc = clusterPolicy("p", [{ ...ok, preconditions: { all: [{ key: "a", value: "b" }] } }]);
    assert.deepEqual(texts(doc), [
      "spec.rules[0].preconditions.all[0]: entered value of `key`, `value` or `operator` is missing or misspelled",
    ]);
  });

  test("admission and background both off", () => {
    assert.ok(
      texts(clusterPolicy("p", [ok], { admission: false, background: false })).includes(
        "spec: disabling both admission and background processing is not allowed",
      ),
    );
  });
});
