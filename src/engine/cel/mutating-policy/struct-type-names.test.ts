/** Kubernetes' check of constructor type names against field paths, read from a mutation's text. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { typeNameMismatches } from "./struct-type-names.js";

const mismatch = (name: string, expected: string) =>
  `unexpected type name ${JSON.stringify(name)}, expected ${JSON.stringify(expected)}, which matches field name path from root Object type`;

test("names that follow their field paths, through lists and map values, are fine", () => {
  assert.deepEqual(typeNameMismatches('Object{metadata: Object.metadata{labels: {"a": "b"}}}'), []);
  assert.deepEqual(
    typeNameMismatches(
      "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'c', env: [Object.spec.containers.env{name: 'X'}]}]}}",
    ),
    [],
  );
  assert.deepEqual(
    typeNameMismatches("Object{metadata: Object.metadata{labels: {'k': Object.metadata.labels{}}}}"),
    [],
  );
  assert.deepEqual(typeNameMismatches("object.metadata.name == 'x'"), []);
});

test("each misnamed constructor is named with the path it sits at; its children are checked against that path", () => {
  assert.deepEqual(
    typeNameMismatches(
      "Object{spec: Object.spec{template: Object.spec.templat{metadata: Object.foo{}, spec: Object.spec.template.spec{}}}}",
    ),
    [mismatch("Object.spec.templat", "Object.spec.template"), mismatch("Object.foo", "Object.spec.template.metadata")],
  );
  assert.deepEqual(typeNameMismatches("Object{spec: Object.spec{containers: [Object.spec.container{}]}}"), [
    mismatch("Object.spec.container", "Object.spec.containers"),
  ]);
  assert.deepEqual(typeNameMismatches("Object{a: {'k': [Object.b{}]}}"), [mismatch("Object.b", "Object.a")]);
});

test("the autogen wrapper around Object.metadata{…} is Kyverno's mismatch", () => {
  assert.deepEqual(
    typeNameMismatches(
      'Object{spec: Object.spec{template: Object.spec.template{metadata: Object.metadata{annotations: {"a": "b"}}}}}',
    ),
    [mismatch("Object.metadata", "Object.spec.template.metadata")],
  );
});

test("a JSONPatch value is a root of its own; other JSONPatch fields are not paths", () => {
  assert.deepEqual(
    typeNameMismatches("[JSONPatch{op: 'add', path: '/spec', value: Object.spec{x: Object.spec.x{}}}]"),
    [],
  );
  assert.deepEqual(typeNameMismatches("[JSONPatch{op: 'add', path: '/x', value: Object.x{y: Object.z{}}}]"), [
    mismatch("Object.z", "Object.x.y"),
  ]);
});

test("a constructor under a condition, a call or a variable is left unchecked; strings are text", () => {
  assert.deepEqual(typeNameMismatches("Object{spec: true ? Object.wrong{} : Object.spec{}}"), []);
  assert.deepEqual(typeNameMismatches("Object{spec: dyn(Object.wrong{})}"), []);
  assert.deepEqual(typeNameMismatches("Object{metadata: Object.metadata{name: 'Object.x{y: Object.z{}}'}}"), []);
  assert.deepEqual(typeNameMismatches("Object{a: {'Object.q': 1}, b: Object.b{}}"), []);
});
