import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonObject, JsonValue } from "../api/json.js";
import { fakeScope } from "../../../test/support/fake-jmespath.js";
import { substituteString } from "./substitute-all.js";

const data = (): JsonObject => ({
  request: {
    operation: "CREATE",
    object: { metadata: { name: "nginx", labels: { app: "web" } }, spec: { replicas: 3 } },
    oldObject: { metadata: { name: "old-nginx" } },
  },
  cm: { data: { web: "tier-1", "tier-1": "gold" } },
  list: ["a", "b"],
  map: { k: "v", h: "<b>&" },
  nothing: null,
  num: 1.5,
  flag: true,
  empty: "",
  tpl: "{{ request.object.metadata.name }}",
  escaped: "\\{{ kept }}",
});

function run(text: string, extra: Parameters<typeof fakeScope>[1] = {}): JsonValue {
  const r = substituteString(text, fakeScope(data(), extra));
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  return r.value;
}

describe("typed versus embedded substitution", () => {
  const cases: [string, JsonValue][] = [
    ["no variables here", "no variables here"],
    ["{{ request.object.metadata.name }}", "nginx"],
    ["{{request.object.spec.replicas}}", 3],
    ["{{ list }}", ["a", "b"]],
    ["{{ map }}", { k: "v", h: "<b>&" }],
    ["{{ flag }}", true],
    ["{{ nothing }}", null],
    ["name-{{ request.object.metadata.name }}", "name-nginx"],
    ["replicas={{ request.object.spec.replicas }}", "replicas=3"],
    ["x-{{ list }}", 'x-["a","b"]'],
    ["x-{{ map }}", 'x-{"h":"\\u003cb\\u003e\\u0026","k":"v"}'],
    ["x-{{ nothing }}", "x-null"],
    ["v{{ num }}/{{ flag }}", "v1.5/true"],
    [" {{ request.object.spec.replicas }}", " 3"],
    ["{{ request.object.metadata.name }}{{ request.object.metadata.labels.app }}", "nginxweb"],
    // after the empty first value the string is exactly one variable, so it turns typed
    ["{{ empty }}{{ request.object.spec.replicas }}", 3],
    ["{{ request.object.metadata.missing || 'none' }}", "none"],
  ];
  for (const [text, expected] of cases) {
    test(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => assert.deepEqual(run(text), expected));
  }
});

describe("nested, escaped and shallow variables", () => {
  const cases: [string, JsonValue][] = [
    ["{{ cm.data.{{ request.object.metadata.labels.app }} }}", "tier-1"],
    ['{{ cm.data."{{ cm.data.{{ request.object.metadata.labels.app }} }}" }}', "gold"],
    ["\\{{ request.object.metadata.name }}", "{{ request.object.metadata.name }}"],
    ["keep \\{{ a }}, use {{ request.object.metadata.name }}", "keep {{ a }}, use nginx"],
    // a value, whole or embedded, is data: it is never scanned again (Kyverno scans an embedded
    // value in its next pass, giving "x nginx" and "x {{ kept }}"; known-gaps.tsv)
    ["{{ tpl }}", "{{ request.object.metadata.name }}"],
    ["{{ escaped }}", "\\{{ kept }}"],
    ["x {{ tpl }}", "x {{ request.object.metadata.name }}"],
    ["x {{ escaped }}", "x \\{{ kept }}"],
    // shallow: substitute once, never expand what the value contains
    ["x {{- tpl }}", "x {{ request.object.metadata.name }}"],
    ["{{- tpl }}", "{{ request.object.metadata.name }}"],
  ];
  for (const [text, expected] of cases) {
    test(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => assert.deepEqual(run(text), expected));
  }
});

describe("DELETE reads request.oldObject", () => {
  test("from the scope's operation", () => {
    assert.equal(run("{{ request.object.metadata.name }}", { operation: "DELETE" }), "old-nginx");
  });
  test("from request.operation in the data", () => {
    const d = data();
    const scope = fakeScope({ ...d, request: { ...(d["request"] as JsonObject), operation: "DELETE" } });
    const r = substituteString("{{ request.object.metadata.name }}", scope);
    assert.deepEqual(r, { ok: true, value: "old-nginx" });
  });
  test("not on other operations", () => {
    assert.equal(run("{{ request.object.metadata.name }}", { operation: "UPDATE" }), "nginx");
  });
});

describe("failures carry Kyverno's message", () => {
  const cases: [string, string][] = [
    [
      "{{ request.object.metadata.missing }}",
      'failed to resolve request.object.metadata.missing at path : JMESPath query failed: Unknown key "missing" in path',
    ],
    [
      "a {{ request.object.spec.nope }} b",
      'failed to resolve request.object.spec.nope at path : JMESPath query failed: Unknown key "nope" in path',
    ],
    ["{{ }}", "failed to resolve  at path : invalid query (nil)"],
    [
      "{{ request..object }}",
      "failed to resolve request..object at path : incorrect query request..object: SyntaxError: ",
    ],
    // the first failing variable, left to right, is the one reported
    [
      "{{ first.missing }} {{ second.missing }}",
      'failed to resolve first.missing at path : JMESPath query failed: Unknown key "first" in path',
    ],
    [
      "{{ cm.data.{{ request.object.metadata.name }} }}",
      'failed to resolve cm.data.nginx at path : JMESPath query failed: Unknown key "nginx" in path',
    ],
  ];
  for (const [text, message] of cases) {
    test(JSON.stringify(text), () => {
      const r = substituteString(text, fakeScope(data()));
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.ok(r.error.message.startsWith(message), r.error.message);
        assert.equal(r.error.kind, "variable-substitution");
      }
    });
  }

  test("DELETE rewrites the variable named in the message too", () => {
    const r = substituteString("{{ request.object.spec.x }}", fakeScope(data(), { operation: "DELETE" }));
    assert.ok(!r.ok && r.error.message.startsWith("failed to resolve request.oldObject.spec.x at path :"));
  });

  test("a value that names itself is data: substituted once (Kyverno loops on it for ever)", () => {
    const scope = fakeScope({ loop: "x{{ loop }}" });
    assert.deepEqual(substituteString("a {{ loop }}", scope), { ok: true, value: "a x{{ loop }}" });
  });

  test("variables nested deeper than 100 levels in the policy's text stop with an error", () => {
    const deep = `${"{{ a.".repeat(101)}b${" }}".repeat(101)}`;
    const r = substituteString(deep, fakeScope({ b: "c" }));
    assert.ok(!r.ok && r.error.message.includes("after 100 passes"), r.ok ? "" : r.error.message);
  });
});

describe("compile once", () => {
  test("repeated evaluation never re-parses an expression", () => {
    const scope = fakeScope(data());
    for (let i = 0; i < 3; i++) substituteString("{{ request.object.metadata.name }}-{{ list }}", scope);
    assert.deepEqual([...scope.jmespath.compiled].sort(), ["list", "request.object.metadata.name"]);
  });

  test("a syntax error is remembered, not re-parsed", () => {
    const scope = fakeScope(data());
    substituteString("{{ a..b }}", scope);
    substituteString("{{ a..b }}", scope);
    assert.deepEqual(scope.jmespath.compiled, ["a..b"]);
  });
});

describe("only the policy's text is a template: a value is data (tenant-isolation.md)", () => {
  // A tenant controls the request (and objects in her namespace); an admin's policy loaded `cfg`.
  const hostile = (): JsonObject => ({
    request: {
      object: {
        data: {
          x: "{{ cfg.data.secret }}",
          key: "nope }} {{ cfg.data.secret",
          tail: "a\\",
          shallow: "{{- cfg.data.secret }}",
        },
      },
    },
    cfg: { data: { secret: "CANARY-kube-system", public: "ok" } },
    w: "{{ cfg.data.secret }}",
  });
  const sub = (text: string) => substituteString(text, fakeScope(hostile()));

  test("`{{ }}` inside a value embedded in a message stays text (Kyverno evaluates it)", () => {
    assert.deepEqual(sub("bad value: {{ request.object.data.x }}"), {
      ok: true,
      value: "bad value: {{ cfg.data.secret }}",
    });
    assert.deepEqual(sub("{{ request.object.data.x }} and {{ w }}"), {
      ok: true,
      value: "{{ cfg.data.secret }} and {{ cfg.data.secret }}",
    });
    assert.deepEqual(sub("{{- request.object.data.shallow }}!"), { ok: true, value: "{{- cfg.data.secret }}!" });
  });

  test("a value cannot close or open a variable of the policy's text", () => {
    // Kyverno splices the value into `{{ cfg.data.{{ … }} }}` and finds `{{ cfg.data.secret }}` in the result.
    const r = sub("{{ cfg.data.{{ request.object.data.key }} }}");
    assert.equal(r.ok, false);
    assert.ok(!JSON.stringify(r).includes("CANARY"), JSON.stringify(r));
    // A value ending in a backslash does not escape the policy's next variable (Kyverno: "a{{ cfg.data.public }}").
    assert.deepEqual(sub("{{ request.object.data.tail }}{{ cfg.data.public }}"), { ok: true, value: "a\\ok" });
  });

  test("the policy's own nesting still resolves innermost first", () => {
    assert.deepEqual(sub("{{ cfg.data.{{ 'public' }} }}"), { ok: true, value: "ok" });
    assert.deepEqual(sub("v={{ cfg.data.{{ 'pub' }}{{ 'lic' }} }}."), { ok: true, value: "v=ok." });
    assert.deepEqual(sub("\\{{ kept {{ cfg.data.public }} }}"), { ok: true, value: "{{ kept ok }}" });
  });
});
