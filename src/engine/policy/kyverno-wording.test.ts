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
