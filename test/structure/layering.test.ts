/**
 * The layering of src/, read from its imports: no import cycle spans two folders; the engine's
 * api/ folder (the shapes every layer shares) imports nothing outside itself; the package's API
 * reaches no CLI or server code; and no layer imports one above it. A cycle inside one folder is
 * allowed: a folder is one unit that is read together.
 *
 * The layers, top down: cli (the commands) -> server (the webhook, and the composition root of the
 * server process) -> controllers (reconcile functions and the loops that apply what they decide) ->
 * kube (the API server's client: it talks to the API server and nothing above it) -> platform (Node
 * adapters: files, YAML, registries, outbound HTTP, certificates) -> engine (pure). The library
 * (src/library, and the package entry src/index.ts above it) sits beside server: it builds on
 * platform and engine only. The playground (src/playground: the engine bundled for the browser) sits
 * beside it and builds on the library's pure parts, platform, engine and the UI's DOM helpers; the UI
 * serves its page and bundle. Every top folder and file of src/ has a rule; a new one fails until it
 * is given one. kube/ keeps only API access: of the engine it takes the shared shapes (KUBE_ENGINE_VALUES)
 * and types, no policy logic.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { folderOf, importCycles, importGraph, reachable, type ImportGraph } from "./import-graph.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const graph = importGraph(root, "src");

function crossFolderCycles(g: ImportGraph): string[][] {
  return importCycles(g).filter((files) => new Set(files.map(folderOf)).size > 1);
}

/**
 * What each top folder (or file) of src/ must not import (tests aside: they may drive any layer).
 * No layer imports the package entry, src/index.ts: it is for the package's users.
 */
const FORBIDDEN: Readonly<Record<string, readonly string[]>> = {
  "src/index.ts": ["src/cli/", "src/server/", "src/controllers/", "src/kube/"],
  "src/cli/": ["src/index.ts"],
  "src/server/": ["src/index.ts", "src/cli/", "src/library/"],
  "src/library/": ["src/index.ts", "src/cli/", "src/server/", "src/controllers/", "src/kube/"],
  "src/controllers/": ["src/index.ts", "src/cli/", "src/server/", "src/library/"],
  "src/playground/": ["src/index.ts", "src/cli/", "src/server/", "src/controllers/", "src/kube/"],
  "src/ui/": ["src/index.ts", "src/cli/", "src/server/", "src/controllers/", "src/library/"],
  "src/kube/": ["src/index.ts", "src/cli/", "src/server/", "src/controllers/", "src/library/"],
  "src/platform/": ["src/index.ts", "src/cli/", "src/server/", "src/controllers/", "src/library/", "src/kube/"],
  "src/engine/": [
    "src/index.ts",
    "src/cli/",
    "src/server/",
    "src/controllers/",
    "src/library/",
    "src/kube/",
    "src/platform/",
  ],
};

/**
 * What kube/ may take from the engine besides types: the shared result and JSON helpers, and the
 * parser of a Kyverno duration (a GlobalContextEntry's refresh interval), and the kind registry's
 * descriptors (`POLICY_KINDS`: which kinds exist, their group, scope and plural, to watch), and the shape of a
 * CEL http answer the context port returns (`httpAnswer`). Anything else (compiling,
 * evaluating, checking policies) is policy logic, which belongs above kube.
 */
const KUBE_ENGINE_VALUES: ReadonlySet<string> = new Set([
  "err",
  "ok",
  "isObject",
  "textOf",
  "parseDurationMillis",
  "POLICY_KINDS",
  "httpAnswer",
]);

/** The names (not type-only) a file's text imports from the engine's front door. */
function engineValueImports(text: string): string[] {
  const names: string[] = [];
  for (const m of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"[./]*engine\/index\.js"/g)) {
    if (m[1] !== undefined) continue;
    for (const part of (m[2] ?? "").split(",")) {
      const name = part.trim();
      if (name !== "" && !name.startsWith("type ")) names.push(name);
    }
  }
  return names;
}

function kubePolicyLogic(g: ImportGraph, read: (file: string) => string): string[] {
  return [...g.keys()]
    .filter((file) => file.startsWith("src/kube/") && !file.endsWith(".test.ts"))
    .flatMap((file) =>
      engineValueImports(read(file))
        .filter((n) => !KUBE_ENGINE_VALUES.has(n))
        .map((n) => `${file}: ${n}`),
    );
}

/** The top entries of src/ (`src/x/` for a folder, `src/x.ts` for a file) that FORBIDDEN has no rule for. */
function unruledTops(entries: readonly { name: string; isDirectory: () => boolean }[]): string[] {
  return entries
    .map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`))
    .filter((top) => !top.endsWith(".d.ts") && (top.endsWith("/") || top.endsWith(".ts")))
    .filter((top) => !Object.hasOwn(FORBIDDEN, top));
}

function upwardImports(g: ImportGraph): string[] {
  return [...g]
    .filter(([file]) => !file.endsWith(".test.ts"))
    .flatMap(([file, targets]) => {
      const layer = Object.keys(FORBIDDEN).find((l) => file.startsWith(l));
      const forbidden = layer === undefined ? [] : (FORBIDDEN[layer] ?? []);
      return targets.filter((t) => forbidden.some((f) => t.startsWith(f))).map((t) => `${file} -> ${t}`);
    });
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
      .flatMap(([file, targets]) =>
        targets.filter((t) => !t.startsWith("src/engine/api/")).map((t) => `${file} -> ${t}`),
      );
    assert.deepEqual(outside, []);
  });

  test("the library entry (src/index.ts) reaches nothing under src/cli or src/server", () => {
    const reached = [...reachable(graph, "src/index.ts")].filter(
      (f) => f.startsWith("src/cli/") || f.startsWith("src/server/"),
    );
    assert.deepEqual(reached, []);
  });

  test("layers import only downwards: cli -> server -> controllers -> kube -> platform -> engine, library -> platform", () => {
    assert.deepEqual(upwardImports(graph), []);
  });

  test("kube/ keeps to API access: of the engine it imports only shared shapes and types", () => {
    assert.deepEqual(
      kubePolicyLogic(graph, (file) => readFileSync(join(root, file), "utf8")),
      [],
    );
  });

  test("every top folder and file of src/ has a layering rule", () => {
    const entries = readdirSync(join(root, "src"), { withFileTypes: true });
    assert.deepEqual(unruledTops(entries), []);
  });
});

describe("the cycle check itself", () => {
  test("finds an import that runs up a layer", () => {
    const g: ImportGraph = new Map([
      ["src/server/worker/w.ts", ["src/cli/commands/serve/p.ts", "src/engine/index.ts"]],
      ["src/cli/main.ts", ["src/server/worker/w.ts"]],
    ]);
    assert.deepEqual(upwardImports(g), ["src/server/worker/w.ts -> src/cli/commands/serve/p.ts"]);
  });

  test("finds controllers reaching into the server and kube into controllers", () => {
    const g: ImportGraph = new Map([
      ["src/controllers/registration/registrar.ts", ["src/server/registration/types.ts", "src/kube/kube-client.ts"]],
      ["src/kube/lease-store.ts", ["src/controllers/leader-election/lease-elector.ts"]],
      ["src/server/app.ts", ["src/controllers/leader-election/lease-elector.ts"]],
    ]);
    assert.deepEqual(upwardImports(g), [
      "src/controllers/registration/registrar.ts -> src/server/registration/types.ts",
      "src/kube/lease-store.ts -> src/controllers/leader-election/lease-elector.ts",
    ]);
  });

  test("finds policy logic kube takes from the engine, and passes types and shared shapes", () => {
    const texts: Record<string, string> = {
      "src/kube/a.ts": 'import { err, ok, type JsonValue } from "../engine/index.js";',
      "src/kube/b.ts":
        'import type { CompiledPolicy } from "../engine/index.js";\nimport { problem, textOf } from "../engine/index.js";',
      "src/kube/c.test.ts": 'import { createEngine } from "../engine/index.js";',
      "src/server/d.ts": 'import { createEngine } from "../engine/index.js";',
    };
    const g: ImportGraph = new Map(Object.keys(texts).map((f) => [f, ["src/engine/index.ts"]]));
    assert.deepEqual(
      kubePolicyLogic(g, (f) => texts[f] ?? ""),
      ["src/kube/b.ts: problem"],
    );
  });

  test("finds kube reaching up into the server, platform into kube, and a layer importing the package entry", () => {
    const g: ImportGraph = new Map([
      ["src/kube/tls-secret.ts", ["src/server/tls/load-tls-files.ts", "src/kube/informer.ts"]],
      ["src/platform/http/x.ts", ["src/kube/read-capped.ts", "src/engine/index.ts"]],
      ["src/library/create-bylaw.ts", ["src/index.ts", "src/kube/kube-client.ts", "src/platform/files/index.ts"]],
      ["src/server/tls/tls-secret.ts", ["src/kube/informer.ts", "src/platform/http/index.ts"]],
      ["src/index.ts", ["src/library/index.ts", "src/server/http/webhook-server.ts"]],
    ]);
    assert.deepEqual(upwardImports(g), [
      "src/kube/tls-secret.ts -> src/server/tls/load-tls-files.ts",
      "src/platform/http/x.ts -> src/kube/read-capped.ts",
      "src/library/create-bylaw.ts -> src/index.ts",
      "src/library/create-bylaw.ts -> src/kube/kube-client.ts",
      "src/index.ts -> src/server/http/webhook-server.ts",
    ]);
  });

  test("names a top folder of src/ that has no rule, and passes files that are not sources", () => {
    const entry = (name: string, dir: boolean): { name: string; isDirectory: () => boolean } => ({
      name,
      isDirectory: () => dir,
    });
    assert.deepEqual(
      unruledTops([
        entry("engine", true),
        entry("operator", true),
        entry("index.ts", false),
        entry("README.md", false),
      ]),
      ["src/operator/"],
    );
    assert.deepEqual(unruledTops([entry("main.ts", false)]), ["src/main.ts"]);
  });

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
    assert.deepEqual(g.get("test/structure/fixtures/a/uses.ts"), [
      "test/structure/fixtures/b/typed.ts",
      "test/structure/fixtures/b/reexported.ts",
      "test/structure/fixtures/b/lazy.ts",
    ]);
  });
});
