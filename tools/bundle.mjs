#!/usr/bin/env node
/**
 * Bundle the `bylaw` CLI with esbuild into dist/bundle/ (docs/adr/0014-bundled-cli.md). Run by
 * `npm run build` after tsc, from tsc's output (dist/src), so the bundle runs exactly the code the
 * unit tests run. Entry points:
 *
 *   dist/bundle/main.js               the CLI's dispatch (bin/bylaw.js imports it)
 *   dist/bundle/evaluation-worker.js  `bylaw serve`'s evaluation worker (worker-pool.ts finds it
 *                                     next to the chunk that holds the pool, by import.meta.url)
 *   dist/bundle/suite-worker.js       `bylaw test`'s suite worker, found the same way
 *
 * Each command's `import()` in main.ts becomes its own chunk (code splitting), so a command parses
 * only its own code and what it shares with others. The npm dependencies are bundled too; the
 * CommonJS ones get a `require` made by createRequire for their `require("node:…")` calls.
 * The library API (package.json "exports") and its typings stay tsc's dist/src.
 *
 * esbuild's metafile (which output holds which module, what each output imports) is written to
 * dist/bundle.meta.json, outside the shipped folder; test/package/bundle.test.ts reads it.
 *
 * Usage: node tools/bundle.mjs
 */
import { build } from "esbuild";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist", "src");
const outdir = join(root, "dist", "bundle");

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    main: join(dist, "cli", "main.js"),
    "evaluation-worker": join(dist, "server", "worker", "evaluation-worker.js"),
    "suite-worker": join(dist, "cli", "commands", "test", "suite-worker.js"),
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  entryNames: "[name]",
  // Chunks sit beside the entries: `new URL("./x-worker.js", import.meta.url)` in a chunk resolves to an entry.
  chunkNames: "chunk-[hash]",
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "warning",
  metafile: true,
  banner: { js: 'import { createRequire as __bylawCreateRequire } from "node:module"; const require = __bylawCreateRequire(import.meta.url);' },
});
if (result.errors.length > 0) process.exit(1);
writeFileSync(join(root, "dist", "bundle.meta.json"), JSON.stringify(result.metafile));
const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith(".js"));
const bytes = outputs.reduce((n, [, o]) => n + o.bytes, 0);
console.log(`bundle: ${outputs.length} files, ${(bytes / 1024).toFixed(0)} KiB in ${outdir}`);
