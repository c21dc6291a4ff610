/**
 * What `npm pack` ships: the CLI, the library and the shipped policies and examples, and nothing
 * only tests or benchmarks use (no test files, test helpers, bench/ or test/ builds).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { packageRoot, packedPaths } from "../support/npm-pack.js";

const root = packageRoot();
const listed = existsSync(join(root, "dist", "src", "index.js"))
  ? packedPaths(root)
  : { ok: false as const, why: "dist/ is not built" };

describe("npm pack --dry-run", { skip: listed.ok ? false : listed.why }, () => {
  const paths = listed.ok ? listed.paths : [];

  test("ships no test, bench or test-helper file", () => {
    // Inside dist/src, a folder named test/ is the `bylaw test` command: only file names tell.
    const testOnly = /(^|\/)(bench|__tests__)\/|\.test\.|test-support\.|test\.helper|(^|\/)fake-[^/]*$/;
    // dist/bundle holds the bundled CLI (tools/bundle.mjs), built from dist/src's shipped modules only.
    const offending = paths.filter(
      (p) =>
        p.startsWith("dist/") &&
        !p.startsWith("dist/bundle/") &&
        (!p.startsWith("dist/src/") || testOnly.test(p.slice("dist/src/".length))),
    );
    assert.deepEqual(offending, []);
  });

  test("ships no module that imports the test runner", () => {
    const runners = /from\s+["']node:(test|assert)(\/strict)?["']/;
    const offending = paths.filter((p) => p.endsWith(".js") && runners.test(readFileSync(join(root, p), "utf8")));
    assert.deepEqual(offending, []);
  });

  test("ships what users run: the CLI, the library with its types, policies and examples", () => {
    const needed = [
      "package.json",
      "README.md",
      "bin/bylaw.js",
      "dist/bundle/main.js",
      "dist/bundle/evaluation-worker.js",
      "dist/bundle/suite-worker.js",
      "dist/src/index.js",
      "dist/src/index.d.ts",
      "dist/src/cli/main.js",
      "policies/README.md",
      "examples/policies/disallow-latest-tag.yaml",
    ];
    assert.deepEqual(
      needed.filter((p) => !paths.includes(p)),
      [],
    );
    assert.ok(
      paths.some((p) => p.startsWith("policies/pss-restricted/")),
      "the pss-restricted policy set is shipped",
    );
  });

  test("every relative import of a shipped module is shipped too", () => {
    const shipped = new Set(paths);
    const relative = /(?:from\s+|import\s*\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
    const missing: string[] = [];
    for (const p of paths.filter((x) => x.endsWith(".js"))) {
      // Comment lines are skipped: bundled libraries keep JSDoc such as `@param {import('./index.js').X}`.
      const code = readFileSync(join(root, p), "utf8")
        .split("\n")
        .filter((l) => !/^\s*(\*|\/\/|\/\*)/.test(l))
        .join("\n");
      for (const m of code.matchAll(relative)) {
        const target = normalize(join(dirname(p), m[1] ?? "")).replaceAll("\\", "/");
        if (!shipped.has(target)) missing.push(`${p} → ${target}`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
