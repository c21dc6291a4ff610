/** Run `npm pack` on the repository, as a publish would, for the package tests. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root: the nearest folder above this file holding package.json and bin/bylaw.js. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "bin", "bylaw.js"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("cannot find the package root (package.json and bin/bylaw.js) above the test");
    dir = up;
  }
  return dir;
}

export interface NpmRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why npm could not be started at all (not installed), or undefined. */
  readonly missing?: string;
}

/** Runs npm offline, without lifecycle scripts (`prepare` would rebuild dist/ under the test run). */
export function npm(args: readonly string[], cwd: string): NpmRun {
  const r = spawnSync("npm", [...args, "--ignore-scripts", "--offline", "--no-audit", "--no-fund"], {
    cwd,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, npm_config_update_notifier: "false" },
  });
  if (r.error !== undefined)
    return { status: null, stdout: "", stderr: "", missing: `npm could not be run: ${r.error.message}` };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The paths `npm pack --dry-run` would put in the tarball, or why they could not be listed. */
export function packedPaths(root: string): { ok: true; paths: string[] } | { ok: false; why: string } {
  const r = npm(["pack", "--dry-run", "--json"], root);
  if (r.missing !== undefined) return { ok: false, why: r.missing };
  if (r.status !== 0) return { ok: false, why: `npm pack --dry-run exited ${r.status}: ${r.stderr.trim()}` };
  const parsed = JSON.parse(r.stdout) as { files: { path: string }[] }[];
  return { ok: true, paths: (parsed[0]?.files ?? []).map((f) => f.path).sort() };
}
