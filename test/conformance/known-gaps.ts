/** Rows believed wrong upstream (or out of scope), each with its reason. Read from known-gaps.tsv. */
import { readFile } from "node:fs/promises";

export interface KnownGap {
  /** A row id, or a suite dir followed by `::*` for every row of a suite. */
  readonly pattern: string;
  readonly reason: string;
}

export async function readKnownGaps(path: string): Promise<KnownGap[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"))
    .map((l) => {
      const [pattern = "", reason = ""] = l.split("\t");
      return { pattern: pattern.trim(), reason: reason.trim() };
    });
}

export function gapFor(id: string, gaps: readonly KnownGap[]): KnownGap | undefined {
  return gaps.find((g) => g.pattern === id || (g.pattern.endsWith("::*") && id.startsWith(g.pattern.slice(0, -1))));
}
