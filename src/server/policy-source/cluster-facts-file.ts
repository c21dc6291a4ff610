/** Read one ClusterFacts YAML file: exactly one document, parsed strictly. */
import { createHash } from "node:crypto";
import { readTextFile } from "../../platform/files/index.js";
import { parseDocuments } from "../../platform/yaml/index.js";
import { parseClusterFacts, type ClusterFactsData } from "./cluster-facts.js";
import type { SourceProblem } from "./types.js";

type FactsFile =
  | { readonly ok: true; readonly fingerprint: string; readonly facts: ClusterFactsData }
  | { readonly ok: false; readonly fingerprint: string; readonly problems: readonly SourceProblem[] };

export async function readClusterFactsFile(file: string): Promise<FactsFile> {
  const text = await readTextFile(file);
  if (!text.ok)
    return { ok: false, fingerprint: `error:${text.error.message}`, problems: [{ file, problem: text.error.message }] };
  const fingerprint = createHash("sha256").update(text.value).digest("hex");
  const fail = (problems: SourceProblem[]): FactsFile => ({ ok: false, fingerprint, problems });
  const docs = parseDocuments(text.value, file);
  const broken = docs.filter((d) => d.error !== undefined);
  if (broken.length > 0)
    return fail(
      broken.map((d) => ({
        file,
        document: d.index + 1,
        ...(d.line !== undefined ? { line: d.line } : {}),
        problem: d.error ?? "",
      })),
    );
  const present = docs.filter((d) => d.value !== undefined);
  const [only] = present;
  if (only === undefined || only.value === undefined) {
    return fail([
      { file, problem: `${file}: no ClusterFacts document (apiVersion bylaw.dev/v1alpha1, kind ClusterFacts)` },
    ]);
  }
  if (present.length > 1)
    return fail([{ file, problem: `${file}: expected one ClusterFacts document, found ${present.length}` }]);
  const parsed = parseClusterFacts(only.value);
  if (!parsed.ok) {
    const at = { file, document: only.index + 1, ...(only.line !== undefined ? { line: only.line } : {}) };
    return fail(parsed.problems.map((problem) => ({ ...at, problem })));
  }
  return { ok: true, fingerprint, facts: parsed.facts };
}
