import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseJsonPatch, parseJsonPatchValue } from "./parse.js";
import type { JsonPatchOp } from "./types.js";
import type { JsonValue } from "../../api/json.js";

function parsed(text: string): JsonPatchOp[] {
  const r = parseJsonPatch(text);
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  return r.value;
}

function parseError(text: string): string {
  const r = parseJsonPatch(text);
  assert.equal(r.ok, false, "expected a parse error");
  return r.ok ? "" : r.error.message;
}

describe("parseJsonPatch reads YAML and JSON", () => {
  test("a YAML list of operations", () => {
    const text = `
- op: add
  path: /metadata/labels/team
  value: platform
- op: remove
  path: /spec/containers/0
- op: move
  from: /a
  path: /b
`;
    assert.deepEqual(parsed(text), [
      { op: "add", path: "/metadata/labels/team", value: "platform" },
      { op: "remove", path: "/spec/containers/0" },
      { op: "move", path: "/b", from: "/a" },
    ]);
  });

  test("a JSON array (flow YAML) with nested values", () => {
    const text =
      '[{"op":"replace","path":"/spec/replicas","value":3},{"op":"copy","from":"/x","path":"/y"},{"op":"test","path":"/s","value":{"a":[1,"yes"]}}]';
    assert.deepEqual(parsed(text), [
      { op: "replace", path: "/spec/replicas", value: 3 },
      { op: "copy", path: "/y", from: "/x" },
      { op: "test", path: "/s", value: { a: [1, "yes"] } },
    ]);
  });

  test("values follow go-yaml v2 (YAML 1.1): yes/on/off are booleans, quoted ones are strings", () => {
    const text = `
- {op: add, path: /a, value: yes}
- {op: add, path: /b, value: on}
- {op: add, path: /c, value: off}
- {op: add, path: /d, value: "yes"}
- {op: add, path: /e, value: 0x1F}
- {op: add, path: /f, value: ~}
- {op: add, path: /g, value: 1.50}
`;
    assert.deepEqual(
      parsed(text).map((o) => o.value),
      [true, true, false, "yes", 31, null, 1.5],
    );
  });

  test("an empty value is null, and null is a valid value", () => {
    assert.deepEqual(parsed("- op: add\n  path: /a\n  value:\n"), [{ op: "add", path: "/a", value: null }]);
  });

  test("unknown fields are ignored and not kept", () => {
    assert.deepEqual(parsed("- {op: remove, path: /a, value: 1, comment: hi}"), [{ op: "remove", path: "/a" }]);
  });

  test("the whole-document path is accepted", () => {
    assert.deepEqual(parsed('- {op: replace, path: "", value: {a: 1}}'), [
      { op: "replace", path: "", value: { a: 1 } },
    ]);
  });

  test("an empty list is an empty patch", () => assert.deepEqual(parsed("[]"), []));
});

describe("parse errors name the operation and the field", () => {
  const cases: [string, string, string][] = [
    [
      "path without /",
      "- {op: add, path: /ok, value: 1}\n- {op: remove, path: /x}\n- {op: add, path: spec/x, value: 1}",
      'patchesJson6902: operation 2: "path" must start with "/" (got "spec/x")',
    ],
    [
      "unknown op",
      "- {op: merge, path: /a}",
      'patchesJson6902: operation 0: "op" must be one of add, remove, replace, move, copy, test (got "merge")',
    ],
    ["missing op", "- {path: /a}", 'patchesJson6902: operation 0: "op" is required'],
    ["op not a string", "- {op: 1, path: /a}", 'patchesJson6902: operation 0: "op" must be a string (got a number)'],
    [
      "op is YAML 1.1 boolean",
      "- {op: yes, path: /a}",
      'patchesJson6902: operation 0: "op" must be a string (got a boolean)',
    ],
    ["missing path", "- {op: remove}", 'patchesJson6902: operation 0: "path" is required'],
    [
      "path not a string",
      "- {op: remove, path: 3}",
      'patchesJson6902: operation 0: "path" must be a string (got a number)',
    ],
    [
      "add without value",
      "- {op: add, path: /a}",
      'patchesJson6902: operation 0: "value" is required for add (write "value: null" for null)',
    ],
    [
      "replace without value",
      "- {op: replace, path: /a}",
      'patchesJson6902: operation 0: "value" is required for replace (write "value: null" for null)',
    ],
    [
      "test without value",
      "- {op: test, path: /a}",
      'patchesJson6902: operation 0: "value" is required for test (write "value: null" for null)',
    ],
    ["move without from", "- {op: move, path: /a}", 'patchesJson6902: operation 0: "from" is required for move'],
    [
      "copy with a bad from",
      "- {op: copy, from: a, path: /a}",
      'patchesJson6902: operation 0: "from" must start with "/" (got "a") for copy',
    ],
    [
      "an op that is not an object",
      "- {op: remove, path: /a}\n- just text",
      'patchesJson6902: operation 1: must be an object with "op" and "path" (got a string)',
    ],
    [
      "not a list",
      "op: add\npath: /a\nvalue: 1",
      "patchesJson6902: the patch must be a list of operations (got an object)",
    ],
    ["empty text", "", "patchesJson6902: the patch must be a list of operations (got null)"],
  ];
  for (const [name, text, message] of cases) test(name, () => assert.equal(parseError(text), message));

  test("invalid YAML says so", () => {
    assert.match(
      parseError("- {op: add, path: /a"),
      /^patchesJson6902: the patch is not valid YAML or JSON: yaml: line \d+: /,
    );
  });
});

describe("parseJsonPatchValue", () => {
  test("takes an already-parsed list", () => {
    const r = parseJsonPatchValue([{ op: "add", path: "/a", value: false }]);
    assert.deepEqual(r, { ok: true, value: [{ op: "add", path: "/a", value: false }] });
  });
  test("rejects a non-list", () => {
    const r = parseJsonPatchValue("- op: add");
    assert.equal(r.ok ? "" : r.error.message, "patchesJson6902: the patch must be a list of operations (got a string)");
  });
  test("a __proto__ field is ignored, and does not set a prototype", () => {
    const op = JSON.parse('{"op":"remove","path":"/a","__proto__":{"value":1}}') as JsonValue;
    const r = parseJsonPatchValue([op]);
    assert.deepEqual(r, { ok: true, value: [{ op: "remove", path: "/a" }] });
  });
});
