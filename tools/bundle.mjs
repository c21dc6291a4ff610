#!/usr/bin/env node
/**
 * Bundle the `bylaw` CLI with esbuild into dist/bundle/ (docs/adr/0014-bundled-cli.md). Run by
 * `npm run build` after tsc, from tsc's output (dist/src), so the bundle runs exactly the code the
 * unit tests run.
 *
 * esbuild splits the CLI into ES module chunks in dist/bundle/esm/ (each command's `import()` in
 * main.ts is a chunk of its own, so a command loads only its own code and what it shares). Each
 * chunk is then converted to a CommonJS script of the same name in dist/bundle/cjs/, which
 * src/cli/launch/cached-bundle.ts compiles with V8's code cache (Node 20 has a code cache for
 * scripts only). The entries, in dist/bundle/:
 *
 *   main.js               the CLI's main(args) (bin/bylaw.js imports it)
 *   evaluation-worker.js  `bylaw serve`'s evaluation worker (worker-pool.ts finds it by a URL
 *                         relative to its own chunk's import.meta.url, which names dist/bundle/)
 *   suite-worker.js       `bylaw test`'s suite worker, found the same way
 *   launch.js             the loader (cached-bundle.ts), an ES module importing only Node's own
 *
 * With source maps on (node --enable-source-maps), the entries import dist/bundle/esm/ instead,
 * whose source maps lead back to dist/src. The npm dependencies are bundled too. The library API
 * (package.json "exports") and its typings stay tsc's dist/src.
 *
 * esbuild's metafile (which chunk holds which module, what each chunk imports) is written to
 * dist/bundle.meta.json, outside the shipped folder; test/package/bundle.test.ts reads it.
 *
 * Usage: node tools/bundle.mjs
 */
import { build, transform } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist", "src");
const outdir = join(root, "dist", "bundle");
const requireBanner =
  'import { createRequire as __bylawCreateRequire } from "node:module"; const require = __bylawCreateRequire(import.meta.url);';

rmSync(outdir, { recursive: true, force: true });

/**
 * A browser page's script (tsc's output of `folder`/browser/main.js) and style sheet, each bundled
 * and minified into one text, written over tsc's compiled `module` (an `export const NAME =
 * undefined` placeholder) so the CLI bundle below (and the unit tests) carry them. esbuild fails
 * here if the page reaches a Node module.
 */
async function browserPage({ folder, css, module, name, what }) {
  const page = await build({
    absWorkingDir: root,
    entryPoints: {
      page: join(dist, folder, "browser", "main.js"),
      page_style: join(root, "src", folder, "browser", css),
    },
    outdir: join(root, "dist", folder),
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
  });
  if (page.errors.length > 0) process.exit(1);
  const text = (ext) => page.outputFiles.find((f) => f.path.endsWith(ext)).text;
  writeFileSync(
    join(dist, folder, module),
    `// Written by tools/bundle.mjs: ${what}, bundled from src/${folder}/browser/.\nexport const ${name} = ${JSON.stringify({ script: text(".js"), style: text(".css") })};\n`,
  );
}

// The report UI's page (docs/adr/0022-report-ui.md).
await browserPage({
  folder: "ui",
  css: "app.css",
  module: "browser-bundle.js",
  name: "BROWSER_BUNDLE",
  what: "the report UI's page",
});
// The playground (docs/playground.md, ADR 0025): its page and the engine itself.
await browserPage({
  folder: "playground",
  css: "playground.css",
  module: "playground-bundle.js",
  name: "PLAYGROUND_BUNDLE",
  what: "the playground's page and the engine",
});

const result = await build({
  absWorkingDir: root,
  entryPoints: {
    main: join(dist, "cli", "main.js"),
    "evaluation-worker": join(dist, "server", "worker", "evaluation-worker.js"),
    "suite-worker": join(dist, "cli", "commands", "test", "suite-worker.js"),
  },
  outdir: join(outdir, "esm"),
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
  // The CommonJS dependencies' `require("node:…")`; the scripts get `require` from their loader instead.
  banner: { js: requireBanner },
});
const loader = await build({
  absWorkingDir: root,
  entryPoints: { launch: join(dist, "cli", "launch", "cached-bundle.js") },
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  entryNames: "[name]",
  logLevel: "warning",
});
if (result.errors.length > 0 || loader.errors.length > 0) process.exit(1);

// Each ES module chunk as a CommonJS script: imports of other chunks become require("./chunk-….js"),
// `import()` a promise of one, import.meta.url a parameter the loader passes.
mkdirSync(join(outdir, "cjs"));
const chunks = Object.keys(result.metafile.outputs).filter((f) => f.endsWith(".js"));
const hash = createHash("sha256");
for (const chunk of chunks.sort()) {
  const code = readFileSync(join(root, chunk), "utf8")
    .replace(requireBanner, "")
    .replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
  const converted = await transform(code, {
    format: "cjs",
    platform: "node",
    target: "node20",
    supported: { "dynamic-import": false },
    define: { "import.meta.url": "__bylaw_import_meta_url" },
    sourcefile: chunk,
    logLevel: "warning",
  });
  // ASCII only: V8 keeps a script's text at one byte a character only while every character fits
  // in Latin-1, so one arrow in a comment doubles the whole chunk's text in every isolate that loads
  // it (the main thread and each worker). esbuild already writes strings and identifiers in ASCII;
  // what is left stands in comments and regular expression literals (`µs` in a duration pattern),
  // where a \uXXXX escape means the same, but for a line or paragraph separator, which ends a //
  // comment where its escape would not: the build refuses one.
  if (/[\u2028\u2029]/.test(converted.code))
    throw new Error(`${chunk}: a raw U+2028/U+2029 the ASCII rewrite cannot keep`);
  const script = converted.code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  writeFileSync(join(outdir, "cjs", basename(chunk)), script);
  hash.update(basename(chunk)).update("\0").update(script).update("\0");
}
const buildId = hash.digest("hex").slice(0, 16);

const header =
  "// Written by tools/bundle.mjs: runs the CommonJS scripts in ./cjs/ through V8's code cache (src/cli/launch/cached-bundle.ts),\n// or the ES modules in ./esm/ when source maps are on.";
const scripts = `new CachedScripts({ dir: fileURLToPath(new URL("./cjs/", import.meta.url)), publicDir: fileURLToPath(new URL("./", import.meta.url)), buildId: ${JSON.stringify(buildId)} })`;
const imports = 'import { fileURLToPath } from "node:url";\nimport { CachedScripts } from "./launch.js";';
writeFileSync(
  join(outdir, "main.js"),
  `${header}
${imports}

/** The CLI's main(args). */
export async function main(args) {
  if (process.sourceMapsEnabled === true) return (await import("./esm/main.js")).main(args);
  const scripts = ${scripts};
  try {
    return await scripts.require("./main.js").main(args);
  } finally {
    scripts.saveCaches();
  }
}
`,
);
for (const worker of ["evaluation-worker", "suite-worker"]) {
  writeFileSync(
    join(outdir, `${worker}.js`),
    `${header}
${imports}

if (process.sourceMapsEnabled === true) await import("./esm/${worker}.js");
else ${scripts}.require("./${worker}.js");
`,
  );
}

writeFileSync(join(root, "dist", "bundle.meta.json"), JSON.stringify(result.metafile));
const bytes = chunks.reduce((n, f) => n + result.metafile.outputs[f].bytes, 0);
console.log(`bundle: ${chunks.length} files, ${(bytes / 1024).toFixed(0)} KiB in ${outdir} (build ${buildId})`);
