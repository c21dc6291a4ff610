/** Substitution over the real JMESPath interpreter (built-in functions only). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject, JsonValue } from "../api/json.js";
import { createJmesPath } from "../jmespath/index.js";
import type { EnginePorts } from "../ports.js";
import { ExpressionCache } from "./expression-cache.js";
import { prepareSubstitution } from "./prepare.js";
import { substituteAll } from "./substitute-all.js";
import type { SubstitutionScope } from "./types.js";

const data: JsonObject = {
  request: {
    operation: "CREATE",
    object: {
      metadata: { name: "nginx", labels: { app: "web" } },
      spec: {
        containers: [
          { name: "c1", image: "nginx:1" },
          { name: "c2", image: "busybox" },
        ],
      },
    },
  },
  cm: { data: { web: "tier-1" } },
};

function scope(extra: Partial<SubstitutionScope> = {}): SubstitutionScope {
  const jmespath = createJmesPath({ functions: [] });
  return { data, jmespath, fnctx: { ports: {} as EnginePorts }, cache: new ExpressionCache(jmespath), ...extra };
}

describe("with the real interpreter", () => {
  const cases: [JsonValue, JsonValue][] = [
    ["{{ request.object.metadata.labels.missing || 'none' }}", "none"],
    ["{{ {n: request.object.metadata.name, c: length(request.object.spec.containers)} }}", { n: "nginx", c: 2 }],
    ["{{ request.object.spec.containers[?name == 'c2'].image | [0] }}", "busybox"],
    ["{{ request.object.spec.containers[].name }}", ["c1", "c2"]],
    ["names={{ request.object.spec.containers[].name }}", 'names=["c1","c2"]'],
    ['{{ cm.data."{{ request.object.metadata.labels.app }}" }}', "tier-1"],
    ['{{ merge(request.object.metadata.labels, `{"x": "1"}`) }}', { app: "web", x: "1" }],
    [{ "{{ request.object.metadata.name }}": "{{ length(request.object.metadata.name) }}" }, { nginx: 5 }],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input), () => assert.deepEqual(substituteAll(input, scope()), { ok: true, value: expected }));
  }

  test("a missing key is an error with Kyverno's text", () => {
    const r = substituteAll({ metadata: { labels: { app: "{{ request.object.metadata.labels.team }}" } } }, scope());
    assert.ok(!r.ok);
    assert.equal(
      r.error.message,
      'failed to resolve request.object.metadata.labels.team at path /metadata/labels/app: JMESPath query failed: Unknown key "team" in path',
    );
  });

  test("a syntax error is reported as an incorrect query", () => {
    const r = substituteAll("{{ request.object.[ }}", scope());
    assert.ok(
      !r.ok &&
        r.error.message.startsWith(
          "failed to resolve request.object.[ at path : incorrect query request.object.[: SyntaxError: ",
        ),
      r.ok ? "" : r.error.message,
    );
  });

  test("{{@}} reads the current value", () => {
    const r = substituteAll(
      { spec: { containers: [{ image: "{{@}}" }] } },
      scope({ basePath: "/mutate/patchStrategicMerge" }),
    );
    assert.deepEqual(r, { ok: true, value: { spec: { containers: [{ image: "nginx:1" }] } } });
  });

  test("prepareSubstitution reports syntax errors from the real parser", () => {
    const s = scope();
    const r = prepareSubstitution({ ok: "{{ a.b }}", bad: "{{ a.[ }}" }, s.cache);
    assert.ok(!r.ok);
    assert.deepEqual(
      r.error.problems.map((p) => p.path),
      ["/bad"],
    );
  });
});
