/** Read the corpus MANIFEST.tsv: one row per suite, with its category and expected row count. */
import { readFile } from "node:fs/promises";

export interface SuiteEntry {
  readonly suiteDir: string;
  readonly category: string;
  readonly checks: number;
}

export async function readManifest(path: string): Promise<SuiteEntry[]> {
  const lines = (await readFile(path, "utf8")).split("\n").filter((l) => l.trim() !== "");
  const header = (lines.shift() ?? "").split("\t");
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`${path}: column ${name} is missing`);
    return i;
  };
  const [dir, cat, n] = [col("suite_dir"), col("category"), col("n_result_checks")];
  return lines.map((l) => {
    const cells = l.split("\t");
    return { suiteDir: cells[dir] ?? "", category: cells[cat] ?? "", checks: Number(cells[n] ?? "0") };
  });
}
