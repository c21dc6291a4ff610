#!/usr/bin/env node
/**
 * Stage Bylaw's runtime into a folder: the files `npm pack` publishes (package.json, bin/, dist/bundle/,
 * dist/src/ without tests, policies/, examples/, README.md) and the production dependencies that
 * package-lock.json pins, installed with `npm ci --omit=dev` (no install scripts run). The
 * Dockerfile's build stage runs it after `npm ci` and `npm run build`; test/deploy/image.test.ts
 * runs it from the checkout into a temporary folder and starts `bylaw serve` from there.
 *
 * Usage: node scripts/image/stage.mjs SRC DEST     (SRC built: dist/src/cli/main.js exists)
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const [srcArg, destArg] = process.argv.slice(2);
if (srcArg === undefined || destArg === undefined) {
  console.error("usage: node scripts/image/stage.mjs SRC DEST");
  process.exit(2);
}
const src = resolve(srcArg);
const dest = resolve(destArg);
if (!existsSync(join(src, "dist", "src", "cli", "main.js"))) {
  console.error(`stage: ${src} is not built (no dist/src/cli/main.js): run npm run build first`);
  process.exit(2);
}
if (existsSync(dest) && readdirSync(dest).length > 0) {
  console.error(`stage: ${dest} is not empty`);
  process.exit(2);
}
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const packed = JSON.parse(
  execFileSync(npm, ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: src,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }),
);
const files = packed[0].files.map((f) => f.path);
for (const file of files) {
  mkdirSync(dirname(join(dest, file)), { recursive: true });
  copyFileSync(join(src, file), join(dest, file));
}
copyFileSync(join(src, "package-lock.json"), join(dest, "package-lock.json"));
execFileSync(npm, ["ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"], {
  cwd: dest,
  stdio: ["ignore", "inherit", "inherit"],
});
console.log(`stage: ${files.length} package files and the production dependencies in ${dest}`);
