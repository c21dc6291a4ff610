/**
 * npm's `prepare` (npm link, npx bylaw, npm pack) builds only when needed: `npm run build` deletes
 * dist/ first, so rebuilding an up-to-date checkout broke bylaw runs in progress from it.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../support/npm-pack.js";
import { tempTree } from "../support/temp-dir.js";

const root = packageRoot();
const script = join(root, "tools", "prepare.mjs");

function check(dir: string): string {
  const run = spawnSync(process.execPath, [script, "--check", "--root", dir], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim();
}

function checkout(): string {
  return tempTree({
    "src/cli/main.ts": "export {};\n",
    "package.json": "{}\n",
    "dist/src/index.js": "\n",
    "dist/bundle/main.js": "\n",
  });
}

function age(dir: string, path: string, seconds: number): void {
  const t = Date.now() / 1000 - seconds;
  utimesSync(join(dir, path), t, t);
}

describe("prepare", () => {
  test("package.json's prepare runs tools/prepare.mjs, not a rebuild that deletes dist/", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts["prepare"], "node tools/prepare.mjs");
  });
  test("a build newer than its sources is left alone", () => {
    const dir = checkout();
    age(dir, "src/cli/main.ts", 60);
    age(dir, "package.json", 60);
    assert.equal(check(dir), "up to date");
  });
  test("a source newer than the build needs a build, named", () => {
    const dir = checkout();
    age(dir, "dist/src/index.js", 60);
    age(dir, "dist/bundle/main.js", 60);
    assert.equal(check(dir), "build needed: src changed since the last build");
  });
  test("a missing build needs a build, named", () => {
    const dir = tempTree({ "src/cli/main.ts": "export {};\n", "dist/src/index.js": "\n" });
    assert.equal(check(dir), "build needed: dist/bundle/main.js is missing");
  });
});
