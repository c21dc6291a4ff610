import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonValue } from "../api/json.js";
import { goJson } from "./go-json.js";
import { goPathClean, goPathJoin } from "./go-path.js";

describe("goJson writes JSON as Kyverno's encoder does", () => {
  const cases: [JsonValue, string][] = [
    [null, "null"],
    [true, "true"],
    [3, "3"],
    [1.5, "1.5"],
    [-0, "-0"],
    [1e21, "1e+21"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["<b>&</b>", '"\\u003cb\\u003e\\u0026\\u003c/b\\u003e"'],
    ["\n\r\t\b\f\u0001", '"\\n\\r\\t\\u0008\\u000c\\u0001"'],
    ["\u2028\u2029é", '"\\u2028\\u2029é"'],
    [["a", 1, null], '["a",1,null]'],
    [{ b: 1, a: { d: [], c: {} } }, '{"a":{"c":{},"d":[]},"b":1}'],
    [{ Z: 1, a: 2, "": 3 }, '{"":3,"Z":1,"a":2}'],
  ];
  for (const [value, text] of cases) {
    test(`${JSON.stringify(value)} → ${text}`, () => assert.equal(goJson(value), text));
  }
});

describe("go path", () => {
  const clean: [string, string][] = [
    ["", "."],
    ["abc", "abc"],
    ["abc/def/", "abc/def"],
    ["a//c", "a/c"],
    ["abc/./def", "abc/def"],
    ["abc/../def", "def"],
    ["../../abc", "../../abc"],
    ["/../abc", "/abc"],
    ["/a/b/c/../../../..", "/"],
    ["abc/def/../../..", ".."],
    ["./../x", "../x"],
  ];
  for (const [input, output] of clean) {
    test(`Clean(${JSON.stringify(input)}) = ${JSON.stringify(output)}`, () => assert.equal(goPathClean(input), output));
  }
  test("Join skips empty elements and cleans", () => {
    assert.equal(
      goPathJoin("/spec/containers/0/livenessProbe/tcpSocket/port", "./../../../readinessProbe/tcpSocket/port"),
      "/spec/containers/0/readinessProbe/tcpSocket/port",
    );
    assert.equal(goPathJoin("", "./x"), "x");
    assert.equal(goPathJoin("", ""), "");
  });
});
