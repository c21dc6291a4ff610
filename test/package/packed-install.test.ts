/**
 * A user's install: the tarball `npm pack` makes, unpacked into a project's node_modules, runs the
 * `bylaw` CLI and imports as the library. The package's dependencies are linked from this checkout
 * (the test makes no network traffic); only Bylaw's own files come from the tarball.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { npm, packageRoot } from "../support/npm-pack.js";
import { readmeExample } from "../support/readme-example.js";

const root = packageRoot();
const project = mkdtempSync(join(tmpdir(), "bylaw-packed-"));
const installed = join(project, "node_modules", "bylaw");
let why: string | undefined = existsSync(join(root, "dist", "src", "index.js")) ? undefined : "dist/ is not built";

function install(): string | undefined {
  const packed = npm(["pack", "--json", "--pack-destination", project], root);
  if (packed.missing !== undefined) return packed.missing;
  if (packed.status !== 0) throw new Error(`npm pack exited ${packed.status}: ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  mkdirSync(installed, { recursive: true });
  const untar = spawnSync(
    "tar",
    ["-xzf", join(project, info?.filename ?? ""), "-C", installed, "--strip-components=1"],
    { encoding: "utf8" },
  );
  if (untar.error !== undefined) return `tar could not be run: ${untar.error.message}`;
  assert.equal(untar.status, 0, untar.stderr);
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const target = join(project, "node_modules", ...dep.split("/"));
    mkdirSync(join(target, ".."), { recursive: true });
    symlinkSync(join(root, "node_modules", ...dep.split("/")), target, "dir");
  }
  return undefined;
}

function node(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, args, { cwd: project, encoding: "utf8", timeout: 60_000 });
}

describe("an install from the packed tarball", () => {
  before(() => {
    why ??= install();
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  test("`bylaw --help` runs from the installed bin", (t) => {
    if (why !== undefined) return t.skip(why);
    const r = node([join(installed, "bin", "bylaw.js"), "--help"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Usage: bylaw COMMAND/m);
  });

  test("`bylaw version` and `bylaw policy-sets` read the installed package.json and policies", (t) => {
    if (why !== undefined) return t.skip(why);
    const version = node([join(installed, "bin", "bylaw.js"), "version"]);
    assert.equal(version.status, 0, version.stderr);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { version: string };
    assert.match(version.stdout, new RegExp(`^bylaw ${manifest.version.replaceAll(".", "\\.")} `));
    const sets = node([join(installed, "bin", "bylaw.js"), "policy-sets"]);
    assert.equal(sets.status, 0, sets.stderr);
    assert.match(sets.stdout, /^pss-restricted\s+\d+/m);
  });

  test("`bylaw test` runs the shipped examples' suites", (t) => {
    if (why !== undefined) return t.skip(why);
    const r = node([join(installed, "bin", "bylaw.js"), "test", join(installed, "examples")]);
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  test("the library imports by package name and runs the README's example", (t) => {
    if (why !== undefined) return t.skip(why);
    const names = node([
      "--input-type=module",
      "-e",
      'const bylaw = await import("bylaw"); console.log(Object.keys(bylaw).sort().join(","));',
    ]);
    assert.equal(names.status, 0, names.stderr);
    assert.deepEqual(names.stdout.trim().split(","), [
      "createBylaw",
      "createEngine",
      "createOfflineEngine",
      "loadPaths",
      "parseDocuments",
    ]);
    const example = readmeExample(root, "library");
    const file = join(project, "example.mjs");
    writeFileSync(file, example.javascript);
    const r = node([file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trimEnd(), example.output);
  });
});
