/**
 * YAML writing speed: Bylaw's writer (src/platform/yaml/write-yaml.ts) against the `yaml` package's
 * stringify with its defaults (what `apply -o` and `-p` used before issue 23), over every document of
 * the Kyverno policy library and over one big ConfigMap (20,000 data entries, a third of them
 * strings that need quotes). Figures are MB of YAML written per second.
 */
import { pathToFileURL } from "node:url";
import { stringify } from "yaml";
import type { JsonValue } from "../src/engine/index.js";
import { parseDocuments, writeYaml } from "../src/platform/yaml/index.js";
import { findCorpusDir, readCorpus } from "./yaml-corpus.js";

const ITERATIONS = 2;

export async function benchYamlWrite(): Promise<void> {
  const dir = findCorpusDir();
  const sets: [string, JsonValue[]][] = [["big ConfigMap", [bigConfigMap(20_000)]]];
  if (dir !== undefined) {
    const docs = (await readCorpus(dir))
      .flatMap((f) => parseDocuments(f.text, f.path))
      .flatMap((d) => (d.value !== undefined ? [d.value] : []));
    sets.unshift([`corpus, ${docs.length} documents`, docs]);
  } else console.log("yaml-write: corpus (shared/conformance/kyverno-policies) not found; only the big ConfigMap");
  for (const [name, values] of sets) {
    const ours = measure(values, (v) => writeYaml(v));
    const before = measure(values, (v) => stringify(v));
    console.log(
      `yaml-write: ${name}: Bylaw's writer ${rate(ours)}, yaml stringify defaults ${rate(before)} ` +
        `(${(ours.bytes / 1e6).toFixed(1)} MB, ${ITERATIONS} iterations)`,
    );
  }
}

function measure(values: readonly JsonValue[], write: (v: JsonValue) => string): { bytes: number; seconds: number } {
  let bytes = 0;
  const start = performance.now();
  for (let i = 0; i < ITERATIONS; i++) for (const v of values) bytes += write(v).length;
  return { bytes: bytes / ITERATIONS, seconds: (performance.now() - start) / 1000 / ITERATIONS };
}

const rate = (m: { bytes: number; seconds: number }): string => `${(m.bytes / m.seconds / 1e6).toFixed(1)} MB/s`;

function bigConfigMap(entries: number): JsonValue {
  const data: Record<string, string> = {};
  const samples = [
    "yes",
    "0755",
    "nginx:1.25",
    "2001-12-14",
    "plain text value",
    "multi\nline\ntext\n",
    "10.0.0.1",
    "on",
    "a: b # c",
  ];
  for (let i = 0; i < entries; i++)
    data[`key-${i}`] = `${samples[i % samples.length] ?? ""}${i % 7 === 0 ? "" : ` ${i}`}`;
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", labels: { enabled: "yes" } }, data };
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  benchYamlWrite().catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  });
}
