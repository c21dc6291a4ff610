/**
 * YAML reading speed over the Kyverno policy library: `js-yaml` and `yaml`, each driving the same
 * Kubernetes-semantics value builder, checked to give identical JSON for every file. The
 * js-yaml's own loader is timed too, for reference, with how many files it reads differently.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { parseDocuments } from "../src/platform/yaml/index.js";
import { findCorpusDir, readCorpus, type CorpusFile } from "./yaml-corpus.js";
import { parseWithYamlLibrary } from "./yaml-lib-front.js";
import { nativeJsYaml } from "./yaml-native-loader.js";

/** Fixed pass counts; the first pass of each also keeps its results for the comparisons. */
const JS_YAML_ITERATIONS = 2;
const YAML_ITERATIONS = 1;

type Outcome = unknown[] | "error";

export async function benchYamlParse(): Promise<void> {
  const dir = findCorpusDir();
  if (dir === undefined) {
    console.log("yaml-parse: corpus (shared/conformance/kyverno-policies) not found; skipped");
    return;
  }
  const files = await readCorpus(dir);
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  const require = createRequire(import.meta.url);
  const version = (name: string): string => (require(`${name}/package.json`) as { version: string }).version;
  const corpus = `corpus ${(bytes / 1e6).toFixed(1)} MB in ${files.length} files`;
  const rate = (iterations: number, seconds: number): string =>
    `${((bytes * iterations) / seconds / 1e6).toFixed(1)} MB/s`;

  const bylaw = measure(files, JS_YAML_ITERATIONS, (f) =>
    parseDocuments(f.text, f.path).map((d) => (d.error === undefined ? d.value : "error")),
  );
  console.log(
    `yaml-parse: js-yaml ${version("js-yaml")}  ${rate(JS_YAML_ITERATIONS, bylaw.seconds)} (${corpus}, ${JS_YAML_ITERATIONS} iterations)`,
  );
  const other = measure(files, YAML_ITERATIONS, (f) => parseWithYamlLibrary(f.text));
  console.log(
    `yaml-parse: yaml ${version("yaml")}  ${rate(YAML_ITERATIONS, other.seconds)} (${corpus}, ${YAML_ITERATIONS} iterations)`,
  );
  const differing = files.filter((_, i) => JSON.stringify(bylaw.outcomes[i]) !== JSON.stringify(other.outcomes[i]));
  console.log(
    differing.length === 0
      ? `yaml-parse: js-yaml and yaml give identical JSON for all ${files.length} files`
      : `yaml-parse: js-yaml and yaml differ on ${differing.length} files, e.g. ${differing
          .slice(0, 3)
          .map((f) => f.path)
          .join(", ")}`,
  );

  // Reference: js-yaml's own loader with its closest options; compared on document values only.
  const native = measure(files, JS_YAML_ITERATIONS, (f) => safely(() => nativeJsYaml(f.text)));
  const wrong = files.filter((_, i) => {
    const ours = bylaw.outcomes[i];
    const values = Array.isArray(ours) ? ours.filter((v) => v !== undefined && v !== "error") : ours;
    return JSON.stringify(native.outcomes[i]) !== JSON.stringify(values);
  }).length;
  console.log(
    `yaml-parse: reference: js-yaml's own loadAll (YAML 1.1 tags, merge, json: true)  ${rate(JS_YAML_ITERATIONS, native.seconds)}, ` +
      `${wrong} of ${files.length} files read differently`,
  );
}

/** Time `iterations` passes over the corpus, keeping the first pass's outcomes. */
function measure(
  files: readonly CorpusFile[],
  iterations: number,
  parse: (f: CorpusFile) => Outcome,
): { seconds: number; outcomes: Outcome[] } {
  const outcomes: Outcome[] = [];
  const start = performance.now();
  for (const file of files) outcomes.push(parse(file));
  for (let i = 1; i < iterations; i++) for (const file of files) parse(file);
  return { seconds: (performance.now() - start) / 1000, outcomes };
}

function safely(load: () => unknown[]): Outcome {
  try {
    return load();
  } catch {
    return "error";
  }
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  benchYamlParse().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
