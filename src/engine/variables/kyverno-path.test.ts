import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  componentsToJmesPath,
  objectChildPath,
  parseTraversalPath,
  removeAnchorsFromPath,
  skipN,
  skipPast,
} from "./kyverno-path.js";

describe("Kyverno traversal paths", () => {
  test("a / inside a key is escaped in the path", () => {
    assert.equal(
      objectChildPath("/metadata/labels", "app.kubernetes.io/name"),
      "/metadata/labels/app.kubernetes.io\\/name",
    );
  });

  const parse: [string, string[]][] = [
    ["", []],
    ["/spec/containers/0/image", ["spec", "containers", "0", "image"]],
    ["/metadata/labels/app.kubernetes.io\\/name", ["metadata", "labels", "app.kubernetes.io/name"]],
    ['/a/"b/c"/d', ["a", "b/c", "d"]],
    ["//a//b/", ["a", "b"]],
  ];
  for (const [raw, components] of parse) {
    test(`parse ${JSON.stringify(raw)}`, () => assert.deepEqual(parseTraversalPath(raw), components));
  }

  test("skipPast drops up to the first occurrence, or nothing", () => {
    assert.deepEqual(skipPast(["mutate", "foreach", "0", "x"], "foreach"), ["0", "x"]);
    assert.deepEqual(skipPast(["mutate", "x"], "foreach"), ["mutate", "x"]);
  });

  test("skipN leaves nothing when n is not smaller than the length", () => {
    assert.deepEqual(skipN(["a", "b", "c"], 2), ["c"]);
    assert.deepEqual(skipN(["a", "b"], 2), []);
    assert.deepEqual(skipN(["a"], 2), []);
  });

  const jp: [string[], string][] = [
    [["request", "object", "spec", "containers", "0", "image"], "request.object.spec.containers[0].image"],
    [
      ["request", "object", "metadata", "labels", "app.kubernetes.io/name"],
      'request.object.metadata.labels."app.kubernetes.io/name"',
    ],
    [["target", "a-b", "C_1"], 'target."a-b".C_1'],
    [["x", "(name)"], 'x."(name)"'],
    [["x", 'q"\\\n\u0001'], 'x."q\\"\\\\\\n\\u0001"'],
    [["x", "007"], "x[007]"],
  ];
  for (const [components, text] of jp) {
    test(`JMESPath of ${JSON.stringify(components)}`, () => assert.equal(componentsToJmesPath(components), text));
  }

  const anchors: [string, string][] = [
    ["/spec/^(containers)/0/(name)", "/spec/containers/0/name"],
    ["/metadata/=(labels)/X(app)/+(x)/<(y)", "/metadata/labels/app/x/y"],
    ["a/./b", "a/b"],
    ["", ""],
  ];
  for (const [path, clean] of anchors) {
    test(`removeAnchorsFromPath(${JSON.stringify(path)})`, () => assert.equal(removeAnchorsFromPath(path), clean));
  }
});
