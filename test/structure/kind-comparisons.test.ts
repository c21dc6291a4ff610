/**
 * ADR 0005: nothing outside the engine tells policy kinds apart by comparing kind strings; it asks the
 * engine (one kind registry, one `classify`). Issue 34 §1 removes the comparisons that remain; until
 * then this list holds them, per file. A new comparison fails here, and so does a listed count that
 * is now lower than written, so the list only shrinks.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const KINDS = [
  "ClusterPolicy",
  "Policy",
  "ValidatingPolicy",
  "NamespacedValidatingPolicy",
  "MutatingPolicy",
  "NamespacedMutatingPolicy",
  "GeneratingPolicy",
  "NamespacedGeneratingPolicy",
  "DeletingPolicy",
  "NamespacedDeletingPolicy",
  "ImageValidatingPolicy",
  "NamespacedImageValidatingPolicy",
  "PolicyException",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "MutatingAdmissionPolicy",
  "MutatingAdmissionPolicyBinding",
  "CleanupPolicy",
  "ClusterCleanupPolicy",
].join("|");

/** `x === "Kind"`, `"Kind" !== x`, `case "Kind":`, and guessing by part of a name (`.includes("Mutating")`, `startsWith("Namespaced")`). */
const COMPARISON = new RegExp(
  [
    `(?:===|!==) "(?:${KINDS})"`,
    `"(?:${KINDS})" (?:===|!==)`,
    `case "(?:${KINDS})":`,
    `\\.includes\\("(?:Mutating|Validating|Generating|Deleting|Namespaced|Cleanup)`,
    `startsWith\\("Namespaced"\\)`,
  ].join("|"),
  "g",
);

/** What is left for issue 34 §1, by file. */
const REMAINING: Readonly<Record<string, number>> = {
  "src/cli/commands/fix/fix-policy.ts": 2,
  "src/kube/cel-policy-kinds.ts": 1,
  "src/controllers/policy-status/policy-status.ts": 3,
  "src/library/compile-documents.ts": 1,
  "src/library/create-bylaw.ts": 1,
  "src/server/admission/policy-validate-handler.ts": 2,
  "src/server/metrics/policy-labels.ts": 1,
  "src/server/policy-source/cel-policy-compile.ts": 1,
  "src/server/policy-source/cluster-policy-source.ts": 2,
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Comparisons per file, outside src/engine. */
function kindComparisons(files: readonly { path: string; text: string }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of files) {
    if (f.path.startsWith("src/engine/")) continue;
    const n = f.text.match(COMPARISON)?.length ?? 0;
    if (n > 0) out[f.path] = n;
  }
  return out;
}

describe("kind comparisons outside the engine (ADR 0005)", () => {
  test("no file compares more kind strings than listed, and the list is not stale", () => {
    const files = sources(join(root, "src")).map((p) => ({
      path: relative(root, p).split("\\").join("/"),
      text: readFileSync(p, "utf8"),
    }));
    assert.ok(files.length > 300, `expected the sources under ${root}/src, found ${files.length}`);
    const found = kindComparisons(files);
    const grown = Object.entries(found)
      .filter(([file, n]) => n > (REMAINING[file] ?? 0))
      .map(([file, n]) => `${file}: ${n} (listed ${REMAINING[file] ?? 0}): ask the engine instead`);
    assert.deepEqual(grown, []);
    const stale = Object.entries(REMAINING)
      .filter(([file, n]) => (found[file] ?? 0) < n)
      .map(([file, n]) => `${file}: ${found[file] ?? 0} now (listed ${n}): lower the list`);
    assert.deepEqual(stale, []);
  });

  test("the check finds comparisons and guesses, and leaves the engine alone", () => {
    const found = kindComparisons([
      { path: "src/server/a.ts", text: 'if (kind === "MutatingPolicy" || "Policy" !== k) return;' },
      { path: "src/server/b.ts", text: 'switch (k) { case "ClusterPolicy": break; } k.includes("Namespaced");' },
      { path: "src/engine/c.ts", text: 'if (kind === "ClusterPolicy") return;' },
      { path: "src/server/d.ts", text: 'const label = "ClusterPolicy";' },
    ]);
    assert.deepEqual(found, { "src/server/a.ts": 2, "src/server/b.ts": 2 });
  });
});
