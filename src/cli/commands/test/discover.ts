/**
 * Find test files (default `kyverno-test.yaml`) below the given folders, recursively, in sorted
 * order; with synchronous calls, as the files are read (platform/files/read-text-file.ts).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

// eslint-disable-next-line @typescript-eslint/require-await -- async on purpose: an unreadable folder is a rejection, as with node:fs/promises
export async function discoverTests(
  paths: readonly string[],
  fileName: string,
): Promise<{ files: string[]; errors: string[] }> {
  const files: string[] = [];
  const errors: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      errors.push(`${p}: no such file or directory`);
      continue;
    }
    if (st.isFile()) files.push(p);
    else walk(p, fileName, files);
  }
  return { files, errors };
}

function walk(dir: string, fileName: string, out: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === "node_modules" || e.name === ".git") continue;
      walk(full, fileName, out);
    } else if (e.isFile() && e.name === fileName) out.push(full);
  }
}
