/** The YAML benchmark's corpus: every `*.yaml` file of the Kyverno policy library, read once. */
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface CorpusFile {
  readonly path: string;
  readonly text: string;
}

/** BYLAW_CONFORMANCE_DIR, else ../shared/conformance/kyverno-policies beside the repository. */
export function findCorpusDir(): string | undefined {
  const fromEnv = process.env["BYLAW_CONFORMANCE_DIR"];
  if (fromEnv !== undefined) return existsSync(fromEnv) ? fromEnv : undefined;
  const here = dirname(fileURLToPath(import.meta.url));
  // Compiled to dist/bench or .out/<name>/bench; also try the working directory.
  const roots = [resolve(here, "..", ".."), resolve(here, "..", "..", ".."), process.cwd()];
  return roots
    .map((root) => resolve(root, "..", "shared", "conformance", "kyverno-policies"))
    .find((dir) => existsSync(dir));
}

export async function readCorpus(dir: string): Promise<CorpusFile[]> {
  const paths: string[] = [];
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && entry.name.endsWith(".yaml")) paths.push(path);
    }
  };
  await walk(dir);
  return Promise.all(paths.map(async (path) => ({ path, text: await readFile(path, "utf8") })));
}
