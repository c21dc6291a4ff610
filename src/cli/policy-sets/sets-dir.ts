/**
 * Where the policy sets live: `policies/` in Bylaw's own package (found from this module's location,
 * so it works from any working folder and when installed from npm), unless BYLAW_POLICY_SETS_DIR
 * names another folder.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { POLICY_SETS_DIR_ENV } from "./types.js";

/** The nearest folder above `from` whose package.json is Bylaw's (or, failing that, any package.json). */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  let fallback: string | undefined;
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      fallback ??= dir;
      if (packageName(manifest) === "bylaw") return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) return fallback ?? process.cwd();
    dir = parent;
  }
}

export function policySetsDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const override = env[POLICY_SETS_DIR_ENV];
  return override !== undefined && override !== "" ? resolve(override) : join(packageRoot(), "policies");
}

/** Bylaw's version, from its package.json (undefined if it cannot be read). */
export function packageVersion(): string | undefined {
  try {
    const v = (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

function packageName(manifest: string): string | undefined {
  try {
    const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name;
    return typeof name === "string" ? name : undefined;
  } catch {
    return undefined;
  }
}
