/** Write a small tree of files into a fresh temporary folder. */
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export function tempTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "bylaw-test-"));
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return root;
}
