/**
 * The engine is pure: no module under src/engine (tests aside) imports Node built-ins or code
 * outside src/engine. This walks every import statement of the engine's sources.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const engineDir = join(repoRoot, "src", "engine");
// @marcbachmann/cel-js: zero dependencies, no Node APIs (ADR 0010).
const ALLOWED_PACKAGES = new Set([
  "re2js",
  "yaml",
  "rfc6902",
  "fflate/browser",
  "@marcbachmann/cel-js",
  "@marcbachmann/cel-js/evaluator",
]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [full] : [];
  });
}

test("src/engine imports nothing outside itself but pure packages", () => {
  const files = sources(engineDir);
  assert.ok(files.length > 20, `expected the engine sources under ${engineDir}`);
  const violations: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*["']([^"']+)["']/g)) {
      const spec = m[1] ?? "";
      if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(engineDir))
          violations.push(`${relative(repoRoot, file)} imports ${spec} (outside src/engine)`);
      } else if (!ALLOWED_PACKAGES.has(spec)) {
        violations.push(`${relative(repoRoot, file)} imports ${spec}`);
      }
    }
  }
  assert.deepEqual(violations, []);
});
