import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { goPathClean, goPathJoin } from "./go-path.js";

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
