/** The ratchet: a checked-in list of row ids that pass. A listed row that fails breaks CI. */
import { readFile, writeFile } from "node:fs/promises";

export async function readRatchet(path: string): Promise<Set<string>> {
  try {
    const text = await readFile(path, "utf8");
    return new Set(
      text
        .split("\n")
        .map((l) => l.trim())
        .filter((l) => l !== "" && !l.startsWith("#")),
    );
  } catch {
    return new Set();
  }
}

export async function writeRatchet(path: string, passing: Iterable<string>): Promise<void> {
  const ids = [...passing].sort();
  const header =
    "# Conformance rows that pass (suite::result-entry::resource). Written by `npm run conformance -- --update`.\n";
  await writeFile(path, header + ids.join("\n") + "\n", "utf8");
}

/** Rows that the ratchet lists but that no longer pass. */
export function regressions(listed: ReadonlySet<string>, passing: ReadonlySet<string>): string[] {
  return [...listed].filter((id) => !passing.has(id)).sort();
}
