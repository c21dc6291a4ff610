/**
 * src/ holds only what the package ships: a module that only tests use lives in test/support/
 * (see its README). This fails when a `test-support.ts` appears under src/ again, or when a module
 * under src/ is imported, but only by tests.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importGraph, type ImportGraph } from "./import-graph.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const graph = importGraph(root, "src");

const isTest = (file: string): boolean => file.endsWith(".test.ts");

/** Modules started from outside src/ (tools/bundle.mjs's entry points), which tests import too. */
const ENTRY_POINTS = new Set(["src/cli/main.ts", "src/cli/launch/cached-bundle.ts"]);

/** Modules named as test helpers, or imported by some file under src/ and by tests alone. */
function testOnlyModules(g: ImportGraph): string[] {
  const importers = new Map<string, string[]>();
  for (const [file, targets] of g) for (const t of targets) importers.set(t, [...(importers.get(t) ?? []), file]);
  return [...g.keys()]
    .filter((file) => !isTest(file) && !ENTRY_POINTS.has(file))
    .filter((file) => {
      const by = importers.get(file) ?? [];
      return /(^|\/)test-support\.ts$/.test(file) || (by.length > 0 && by.every(isTest));
    })
    .sort();
}

describe("test-only modules", () => {
  test("no module under src/ is a test helper", () => {
    assert.ok(graph.size > 300, `expected the sources under ${root}/src, found ${graph.size}`);
    assert.deepEqual(testOnlyModules(graph), []);
  });

  test("the check finds a test-support file and a module only tests import", () => {
    const g: ImportGraph = new Map([
      ["src/a/test-support.ts", []],
      ["src/a/helper.ts", []],
      ["src/a/shipped.ts", []],
      ["src/a/main.ts", ["src/a/shipped.ts"]],
      ["src/a/x.test.ts", ["src/a/helper.ts", "src/a/shipped.ts", "src/a/test-support.ts"]],
    ]);
    assert.deepEqual(testOnlyModules(g), ["src/a/helper.ts", "src/a/test-support.ts"]);
  });
});
