#!/usr/bin/env node
/**
 * npm's `prepare` (run by `npm install` in this checkout, `npm link`, `npx bylaw` and `npm pack`):
 * build only when the build is missing or older than its sources. `npm run build` starts by deleting
 * dist/, so rebuilding an up-to-date checkout on every `npx bylaw` or `npm link` broke any bylaw run
 * (or test run) in progress from it.
 *
 * Usage: node tools/prepare.mjs [--check] [--root DIR]
 *   --check  print "up to date" or "build needed: <why>" and build nothing
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The outputs a run needs, and what they are built from. */
const OUTPUTS = ["dist/bundle/main.js", "dist/src/index.js"];
const INPUTS = ["src", "test", "bench", "tools/bundle.mjs", "package.json", "tsconfig.json", "tsconfig.build.json"];

/** The newest modification time under a path (a file or a folder), or 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let latest = 0;
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  return latest;
}

/** undefined when the build is up to date, else why it is needed. */
export function buildNeeded(root) {
  const missing = OUTPUTS.find((o) => !existsSync(join(root, o)));
  if (missing !== undefined) return `${missing} is missing`;
  const built = Math.min(...OUTPUTS.map((o) => statSync(join(root, o)).mtimeMs));
  const changed = INPUTS.find((i) => newest(join(root, i)) > built);
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

function main(args) {
  const at = args.indexOf("--root");
  const root = at >= 0 ? resolve(args[at + 1] ?? ".") : resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const why = buildNeeded(root);
  if (args.includes("--check")) {
    process.stdout.write(why === undefined ? "up to date\n" : `build needed: ${why}\n`);
    return 0;
  }
  if (why === undefined) return 0;
  process.stderr.write(`bylaw: building (${why})\n`);
  const npm = process.env["npm_execpath"];
  const run =
    npm !== undefined
      ? spawnSync(process.execPath, [npm, "run", "build"], { cwd: root, stdio: "inherit" })
      : spawnSync("npm", ["run", "build"], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
  return run.status ?? 1;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
