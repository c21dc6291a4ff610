import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseJsonDocument } from "./parse-json-document.js";

describe("parseJsonDocument", () => {
  it("reads one JSON value as one document", () => {
    assert.deepEqual(parseJsonDocument('{"kind":"List","items":[{"a":1}]}', "r.json"), [
      { source: "r.json", index: 0, line: 1, value: { kind: "List", items: [{ a: 1 }] } },
    ]);
    assert.deepEqual(parseJsonDocument("[1, 2]", "a.json")[0]?.value, [1, 2]);
  });

  it("treats null and empty files as empty documents", () => {
    assert.deepEqual(parseJsonDocument("null", "n.json"), [{ source: "n.json", index: 0, line: 1 }]);
    assert.deepEqual(parseJsonDocument("", "e.json"), []);
  });

  it("falls back to the YAML reader, as Kubernetes does, for lenient JSON and for errors", () => {
    assert.deepEqual(parseJsonDocument('{"a": [1, 2,],}', "l.json")[0]?.value, { a: [1, 2] });
    assert.deepEqual(parseJsonDocument('{"big": 1e400}', "b.json")[0]?.value, { big: "1e400" });
    const error = parseJsonDocument('{\n  "a": 1,\n  "b": [\n}', "bad.json")[0]?.error ?? "";
    assert.match(error, /^bad\.json: document 1 \(line 1\): .* at line 4, column 1$/);
  });
});
