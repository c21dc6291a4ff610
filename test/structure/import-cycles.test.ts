/**
 * The layering of src/, read from its imports: no import cycle spans two folders, and the engine's
 * api/ folder (the shapes every layer shares) imports nothing outside itself. A cycle inside one
 * folder is allowed: a folder is one unit that is read together.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { folderOf, importCycles, importGraph, reachable, type ImportGraph } from "./import-graph.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const graph = importGraph(root, "src");

function crossFolderCycles(g: ImportGraph): string[][] {
  return importCycles(g).filter((files) => new Set(files.map(folderOf)).size > 1);
}

describe("src/ import structure", () => {
  test("the graph covers the sources", () => {
    assert.ok(graph.size > 300, `expected the sources under ${join(root, "src")}, found ${graph.size}`);
    assert.ok((graph.get("src/engine/engine.ts") ?? []).length > 5, "engine.ts's imports are read");
  });

  test("no import cycle spans two folders", () => {
    assert.deepEqual(crossFolderCycles(graph), []);
  });

  test("engine/api imports nothing outside engine/api", () => {
    const outside = [...graph]
      .filter(([file]) => file.startsWith("src/engine/api/") && !file.endsWith(".test.ts"))
      .flatMap(([file, targets]) => targets.filter((t) => !t.startsWith("src/engine/api/")).map((t) => `${file} -> ${t}`));
    assert.deepEqual(outside, []);
  });

  test("the library entry (src/index.ts) reaches nothing under src/cli or src/server", () => {
    const reached = [...reachable(graph, "src/index.ts")].filter((f) => f.startsWith("src/cli/") || f.startsWith("src/server/"));
    assert.deepEqual(reached, []);
  });
});

describe("the cycle check itself", () => {
  test("finds a cycle across folders and passes one inside a folder", () => {
    const g: ImportGraph = new Map([
      ["src/a/one.ts", ["src/b/two.ts"]],
      ["src/b/two.ts", ["src/b/three.ts"]],
      ["src/b/three.ts", ["src/a/one.ts", "src/b/two.ts"]],
      ["src/c/four.ts", ["src/c/five.ts"]],
      ["src/c/five.ts", ["src/c/four.ts"]],
    ]);
    assert.deepEqual(crossFolderCycles(g), [["src/a/one.ts", "src/b/three.ts", "src/b/two.ts"]]);
    assert.equal(importCycles(g).length, 2);
  });

  test("reads type-only imports, re-exports and dynamic imports as arrows", () => {
    const g = importGraph(root, "test/structure/fixtures");
    assert.deepEqual(g.get("test/structure/fixtures/a/uses.ts"), ["test/structure/fixtures/b/typed.ts", "test/structure/fixtures/b/reexported.ts", "test/structure/fixtures/b/lazy.ts"]);
  });
});
